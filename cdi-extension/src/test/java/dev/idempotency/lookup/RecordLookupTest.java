package dev.idempotency.lookup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyScope;
import dev.idempotency.Idempotent;
import dev.idempotency.claim.ScopedKey;
import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.config.Policies;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.RecordDetails;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.store.DelegatingStore;
import dev.idempotency.store.InMemoryIdempotencyStore;

/**
 * The support look-up on the in-memory store, its clock moved by the test: the question points at
 * the record the request made, and only a claim whose lease ran out is released.
 */
class RecordLookupTest {

    private static final String FINGERPRINT = "fp-first";
    private static final Principal ALICE = () -> "alice";

    static class Orders {
        @Idempotent(lease = "PT10S", ttl = "PT1H")
        public void place() {
        }

        @Idempotent(scope = IdempotencyScope.TENANT, name = "orders.tenant")
        public void placeForTenant() {
        }
    }

    private final AtomicLong clock = new AtomicLong(5_000_000_000L);
    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(100, clock::get);
    private final IdempotencyPolicy place = policy("place");
    private final IdempotencyPolicy forTenant = policy("placeForTenant");
    private final RecordLookup lookup = new RecordLookup(store, Map.of(place.endpoint(), place, forTenant.endpoint(), forTenant));

    private static IdempotencyPolicy policy(String method) {
        return Policies.unconfigured(Orders.class, method);
    }

    private String claimAsRequest(String rawKey) {
        String key = ScopedKey.of(place, ALICE, rawKey);
        ClaimResult result = store.claim(key, FINGERPRINT, place.lease(), place.ttl());
        return ((ClaimResult.Acquired) result).owner();
    }

    private RecordLookup.Target aliceKey(String rawKey) {
        return lookup.target(new SupportQuery(place.endpoint(), "alice", null, rawKey));
    }

    private void advance(Duration by) {
        clock.addAndGet(by.toNanos());
    }

    @Test
    void theQuestionPointsAtTheRecordTheCallersRequestMadeWithItsTimes() {
        Instant before = Instant.now();
        claimAsRequest("order-1");

        Optional<RecordDetails> found = lookup.inspect(aliceKey("order-1"));

        assertThat(found).isPresent();
        RecordDetails details = found.get();
        assertThat(details.record().state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(details.claimedAt()).isBetween(before.minusSeconds(1), Instant.now().plusSeconds(1));
        assertThat(Duration.between(details.claimedAt(), details.leaseEnds())).isEqualTo(Duration.ofSeconds(10));
        assertThat(Duration.between(details.claimedAt(), details.expiresAt())).isEqualTo(Duration.ofHours(1));
        assertThat(lookup.inspect(lookup.target(new SupportQuery(place.endpoint(), "bob", null, "order-1"))))
                .as("another caller's key space").isEmpty();
        assertThat(lookup.inspect(lookup.target(new SupportQuery(place.endpoint(), null, null, "order-1"))))
                .as("the anonymous callers' key space").isEmpty();
    }

    @Test
    void aCompletedRecordShowsItsAnswerAndHasNoLease() {
        String owner = claimAsRequest("order-2");
        store.complete(ScopedKey.of(place, ALICE, "order-2"), owner,
                StoredOutcome.of(201, Map.of("Location", List.of("/payments/7")), "{\"id\":7}".getBytes()), place.ttl());

        RecordDetails details = lookup.inspect(aliceKey("order-2")).orElseThrow();

        assertThat(details.record().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(details.record().outcome().status()).isEqualTo(201);
        assertThat(details.record().outcome().body()).isEqualTo("{\"id\":7}".getBytes());
        assertThat(details.leaseEnds()).isNull();
        assertThat(details.claimedAt()).isNotNull();
    }

    @Test
    void aClaimWhoseLeaseRunsIsNotReleasedAndOneWhoseLeaseRanOutIsAndTheKeyRunsAgainWithAnyPayload() {
        String owner = claimAsRequest("order-3");
        RecordLookup.Target target = aliceKey("order-3");

        assertThat(lookup.release(target)).isInstanceOf(RecordLookup.Release.LeaseRunning.class);
        assertThat(lookup.inspect(target)).as("untouched while its lease runs").isPresent();

        advance(Duration.ofSeconds(11));
        assertThat(store.claim(target.scopedKey(), "fp-other", place.lease(), place.ttl()))
                .as("before the release: another payload is refused as a reused key")
                .isInstanceOf(ClaimResult.Existing.class);
        assertThat(lookup.release(target)).isInstanceOf(RecordLookup.Release.Released.class);

        assertThat(lookup.inspect(target)).isEmpty();
        assertThat(store.claim(target.scopedKey(), "fp-other", place.lease(), place.ttl()))
                .as("after it: the next request runs").isInstanceOf(ClaimResult.Acquired.class);
        assertThat(store.complete(target.scopedKey(), owner, StoredOutcome.withoutBody(200, Map.of()), place.ttl()))
                .as("the gone owner's late completion is refused").isFalse();
    }

    @Test
    void workThatCommittedAndCompletedRecordsAreNeverReleasedEvenAfterTheirLease() {
        String executed = claimAsRequest("order-4");
        store.markExecuted(ScopedKey.of(place, ALICE, "order-4"), executed, place.lease(), place.ttl());
        String completed = claimAsRequest("order-5");
        store.complete(ScopedKey.of(place, ALICE, "order-5"), completed, StoredOutcome.withoutBody(204, Map.of()),
                place.ttl());
        advance(Duration.ofSeconds(30));

        assertThat(lookup.release(aliceKey("order-4")))
                .isEqualTo(new RecordLookup.Release.NotReleasable(RecordState.OUTCOME_LOST));
        assertThat(lookup.release(aliceKey("order-5")))
                .isEqualTo(new RecordLookup.Release.NotReleasable(RecordState.COMPLETED));
        assertThat(lookup.inspect(aliceKey("order-5")).orElseThrow().record().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(lookup.release(aliceKey("order-6"))).isInstanceOf(RecordLookup.Release.NoRecord.class);
    }

    @Test
    void aReleaseWhoseStoreFailsLeavesTheKeyBoundForTheSupportClaimsShortLeaseOnly() {
        claimAsRequest("order-7");
        advance(Duration.ofSeconds(11));
        RecordLookup failing = new RecordLookup(new ReleaseFails(store), Map.of(place.endpoint(), place));
        RecordLookup.Target target = failing.target(new SupportQuery(place.endpoint(), "alice", null, "order-7"));

        assertThatThrownBy(() -> failing.release(target)).isInstanceOf(IdempotencyStoreException.class);

        advance(RecordLookup.RELEASE_LEASE.plusMillis(1));
        assertThat(store.inspect(target.scopedKey())).as("the support claim's record lapses with its lease, not the ttl")
                .isEmpty();
        assertThat(store.claim(target.scopedKey(), "fp-other", place.lease(), place.ttl()))
                .as("a corrected request then runs").isInstanceOf(ClaimResult.Acquired.class);
    }

    @Test
    void aRecordReplacedByAnotherRequestAfterTheLookIsNotReportedAsTheOneWhoseLeaseRuns() {
        String key = ScopedKey.of(place, ALICE, "order-8");
        store.claim(key, FINGERPRINT, Duration.ofSeconds(10), Duration.ofSeconds(12));
        advance(Duration.ofSeconds(11)); // its lease ran out; its retention ends in 1 s
        RecordLookup replacing = new RecordLookup(new BeforeFirstClaim(store, () -> {
            advance(Duration.ofSeconds(2));
            store.claim(key, "fp-other", place.lease(), place.ttl()); // another request, after the retention
        }), Map.of(place.endpoint(), place));

        RecordLookup.Release release = replacing.release(aliceKey("order-8"));

        assertThat(release).isInstanceOf(RecordLookup.Release.LeaseRunning.class);
        RecordDetails shown = ((RecordLookup.Release.LeaseRunning) release).details();
        assertThat(shown.record().fingerprint()).as("the record whose lease runs, not the one first looked at")
                .isEqualTo("fp-other");
        assertThat(store.inspect(key).orElseThrow().record().fingerprint()).isEqualTo("fp-other");
    }

    /** The in-memory store, whose release fails as a store that stopped answering. */
    private static final class ReleaseFails extends DelegatingStore {
        ReleaseFails(IdempotencyStore store) {
            super(store);
        }

        @Override
        public boolean release(String key, String owner) {
            throw new IdempotencyStoreException("the store stopped answering");
        }
    }

    /** The in-memory store, where something happens just before the first claim. */
    private static final class BeforeFirstClaim extends DelegatingStore {
        private Runnable before;

        BeforeFirstClaim(IdempotencyStore store, Runnable before) {
            super(store);
            this.before = before;
        }

        @Override
        public ClaimResult claim(String key, String fingerprint, Duration lease, Duration retention) {
            if (before != null) {
                Runnable once = before;
                before = null;
                once.run();
            }
            return store.claim(key, fingerprint, lease, retention);
        }
    }

    @Test
    void aQuestionThatPointsAtNoRecordSaysWhatToSend() {
        assertThatThrownBy(() -> lookup.target(new SupportQuery("com.acme.Nowhere#x()", "alice", null, "k")))
                .isInstanceOf(BadSupportQuery.class).hasMessageContaining("no @Idempotent endpoint is named")
                .hasMessageContaining(place.endpoint());
        assertThatThrownBy(() -> lookup.target(new SupportQuery(place.endpoint(), "alice", null, "")))
                .isInstanceOf(BadSupportQuery.class).hasMessageContaining("give the key");
        assertThatThrownBy(() -> lookup.target(new SupportQuery("orders.tenant", "alice", null, "k")))
                .isInstanceOf(BadSupportQuery.class).hasMessageContaining("scoped by tenant");
        assertThat(lookup.target(new SupportQuery("orders.tenant", "alice", "acme", "k")).scopedKey())
                .isEqualTo(ScopedKey.of(forTenant, ALICE, "acme", "k"));
    }

    /**
     * Where the tenant is the request's host, requests carry it in lower case (host names are
     * case-insensitive): a question naming it as an operator writes it finds the record.
     */
    @Test
    void aHostTenantIsAskedAboutInAnyCase() {
        RecordLookup byHost = new RecordLookup(store, Map.of(forTenant.endpoint(), forTenant),
                dev.idempotency.config.TenantSource.HOST);

        assertThat(byHost.target(new SupportQuery("orders.tenant", "alice", "Acme.Example.com", "k")).scopedKey())
                .isEqualTo(ScopedKey.of(forTenant, ALICE, "acme.example.com", "k"));
        assertThat(byHost.target(new SupportQuery("orders.tenant", "alice", "Acme.Example.com:8443", "k")).scopedKey())
                .as("a Host header pasted with its port").isEqualTo(ScopedKey.of(forTenant, ALICE, "acme.example.com", "k"));
    }
}
