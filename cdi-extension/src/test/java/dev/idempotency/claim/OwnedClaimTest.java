package dev.idempotency.claim;

import static dev.idempotency.IdempotencyOutcome.COMPLETED;
import static dev.idempotency.IdempotencyOutcome.RELEASED;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.ws.rs.core.Response;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyEvent;
import dev.idempotency.IdempotencyOutcome;
import dev.idempotency.Idempotent;
import dev.idempotency.cdi.CurrentHttpClaim;
import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.config.Policies;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.store.InMemoryIdempotencyStore;
import dev.idempotency.store.RecordingStore;

/**
 * A claim is ended exactly once, whoever ends it first; and work recorded as committed is never
 * given back for a second run.
 */
class OwnedClaimTest {

    static class Orders {
        @Idempotent(lease = "PT10S")
        public void place() {
        }

        @Idempotent(lease = "PT10S", pinServerErrors = true)
        public void placePinningServerErrors() {
        }
    }

    private static final String FINGERPRINT = "fp-1";
    private static final StoredOutcome PLACED = StoredOutcome.of(201, Map.of(), "placed".getBytes());

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final InMemoryIdempotencyStore memory = new InMemoryIdempotencyStore(1_000, clock::get);
    private final RecordingStore store = new RecordingStore(memory);
    private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
    private final IdempotencyPolicy policy = policy("place");
    private final ExecutorService threads = Executors.newFixedThreadPool(2);
    private final ReleaseRetries retries = new ReleaseRetries();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
        retries.close();
    }

    private static IdempotencyPolicy policy(String method) {
        return Policies.unconfigured(Orders.class, method);
    }

    private OwnedClaim claim(String key) {
        ClaimResult result = store.claim(key, FINGERPRINT, policy.lease(), policy.ttl());
        assertThat(result).isInstanceOf(ClaimResult.Acquired.class);
        return new OwnedClaim(store, policy, key, ((ClaimResult.Acquired) result).owner(),
                new EventPublisher(List.of(events::add)), new InProgressWaits(1), retries, false);
    }

    private List<IdempotencyOutcome> outcomes() {
        return events.stream().map(IdempotencyEvent::outcome).toList();
    }

    private void elapse(Duration duration) {
        clock.addAndGet(duration.toNanos() + 1);
    }

    @Test
    void aCompletedClaimIsNotReleasedAfterwards() {
        OwnedClaim claim = claim("k-1");

        claim.complete(PLACED);
        boolean released = claim.release();

        assertThat(released).isFalse();
        assertThat(claim.isOpen()).isFalse();
        assertThat(store.calls("release")).isZero();
        assertThat(memory.find("k-1").orElseThrow().outcome()).isEqualTo(PLACED);
        assertThat(outcomes()).containsExactly(COMPLETED);
    }

    @Test
    void aReleasedClaimIsNotCompletedAfterwards() {
        OwnedClaim claim = claim("k-1");

        assertThat(claim.release()).isTrue();
        claim.complete(PLACED);

        assertThat(store.calls("complete")).isZero();
        assertThat(memory.find("k-1")).isEmpty();
        assertThat(outcomes()).containsExactly(RELEASED);
        assertThat(store.claim("k-1", FINGERPRINT, policy.lease(), policy.ttl()))
                .as("a retry runs again").isInstanceOf(ClaimResult.Acquired.class);
    }

    @Test
    void endingAClaimTwiceReachesTheStoreOnce() {
        OwnedClaim completed = claim("k-1");
        OwnedClaim released = claim("k-2");

        completed.complete(PLACED);
        completed.complete(StoredOutcome.of(500, Map.of(), new byte[0]));
        assertThat(released.release()).isTrue();
        assertThat(released.release()).isFalse();
        assertThat(released.releaseAfterRollback()).isFalse();

        assertThat(store.calls("complete")).isEqualTo(1);
        assertThat(store.calls("release")).isEqualTo(1);
        assertThat(memory.find("k-1").orElseThrow().outcome()).as("the first outcome").isEqualTo(PLACED);
    }

    @Test
    void whoeverEndsAClaimFirstWinsAndTheStoreSeesOneCall() throws Exception {
        for (int round = 0; round < 200; round++) {
            OwnedClaim claim = claim("k-" + round);
            CountDownLatch go = new CountDownLatch(1);
            Future<?> completing = threads.submit(() -> {
                go.await();
                claim.complete(PLACED);
                return null;
            });
            Future<?> releasing = threads.submit(() -> {
                go.await();
                return claim.release();
            });
            go.countDown();
            completing.get(10, TimeUnit.SECONDS);
            releasing.get(10, TimeUnit.SECONDS);
        }

        assertThat(store.calls("complete") + store.calls("release")).isEqualTo(200);
        assertThat(events).hasSize(200);
    }

    @Test
    void workMarkedExecutedIsNeverGivenBackByARelease() {
        OwnedClaim claim = claim("k-1");

        assertThat(claim.markExecuted()).isTrue();
        claim.release(); // e.g. the end of a request whose answer could not be stored

        assertThat(claim.executed()).isTrue();
        assertThat(claim.isOpen()).isFalse();
        assertThat(store.calls("release")).isZero();
        assertThat(outcomes()).doesNotContain(RELEASED);
        ClaimResult during = store.claim("k-1", FINGERPRINT, policy.lease(), policy.ttl());
        elapse(policy.lease());
        ClaimResult after = store.claim("k-1", FINGERPRINT, policy.lease(), policy.ttl());
        assertThat(RetryOutcomes.of(((ClaimResult.Existing) during).record(), FINGERPRINT))
                .isEqualTo(IdempotencyOutcome.CONFLICT);
        assertThat(RetryOutcomes.of(((ClaimResult.Existing) after).record(), FINGERPRINT))
                .as("the retry is told the outcome was lost, and does not run")
                .isEqualTo(IdempotencyOutcome.OUTCOME_LOST);
    }

    @Test
    void aReleaseAfterARollbackGivesTheKeyBackEvenAfterTheWorkWasMarkedExecuted() {
        OwnedClaim claim = claim("k-1");
        claim.markExecuted();

        assertThat(claim.releaseAfterRollback()).isTrue();

        assertThat(claim.executed()).isFalse();
        assertThat(store.calls("release")).isEqualTo(1);
        assertThat(memory.find("k-1")).isEmpty();
        assertThat(outcomes()).containsExactly(RELEASED);
    }

    @Test
    void aStoreFailingWhileTheClaimEndsIsLoggedNotThrownAndTheClaimStaysEnded() {
        OwnedClaim completing = claim("k-1");
        OwnedClaim releasing = claim("k-2");
        store.down(true);

        completing.complete(PLACED);
        boolean released = releasing.release();

        assertThat(completing.isOpen()).isFalse();
        assertThat(released).as("this call ended it; the store's record lapses with its lease").isTrue();
        assertThat(completing.release()).isFalse();
        assertThat(store.calls("complete")).isEqualTo(1);
        assertThat(store.calls("release")).isEqualTo(1);
        assertThat(outcomes()).as("nothing was stored nor released").isEmpty();
    }

    @Test
    void anOwnerWhoseKeyWasTakenOverCanNeitherMarkNorCompleteIt() {
        OwnedClaim slow = claim("k-1");
        elapse(policy.lease());
        OwnedClaim retry = claim("k-1");

        assertThat(slow.markExecuted()).isFalse();
        slow.complete(StoredOutcome.of(201, Map.of(), "late".getBytes()));
        slow.release();
        retry.complete(PLACED);

        assertThat(memory.find("k-1").orElseThrow().outcome()).isEqualTo(PLACED);
        assertThat(outcomes()).as("only the new owner's completion").containsExactly(COMPLETED);
    }

    @Test
    void aServerErrorResponseReleasesAnHttpClaimUnlessServerErrorsArePinned() {
        HttpClaim http = new HttpClaim(store, policy, null, null, false, "k-1", "owner", EventPublisher.NONE, new InProgressWaits(1), retries);
        HttpClaim pinned = new HttpClaim(store, policy("placePinningServerErrors"), null, null, false, "k-2", "owner",
                EventPublisher.NONE, new InProgressWaits(1), retries);

        assertThat(http.releasedBy(Response.status(503).build())).isTrue();
        assertThat(http.releasedBy(Response.status(500).entity("failed").build())).isTrue();
        assertThat(http.releasedBy(Response.status(422).build())).isFalse();
        assertThat(http.releasedBy(Response.ok().build())).isFalse();
        assertThat(http.releasedBy("a 500 in words")).isFalse();
        assertThat(pinned.releasedBy(Response.status(503).build())).isFalse();
    }

    @Test
    void anHttpClaimIsEnteredOnlyOnceTheInterceptorHandedItToTheMethod() throws Exception {
        Method place = Orders.class.getMethod("place");
        HttpClaim http = new HttpClaim(store, policy, Orders.class, place, false, "k-1", "owner", EventPublisher.NONE, new InProgressWaits(1), retries);
        CurrentHttpClaim current = new CurrentHttpClaim();
        current.set(http);

        assertThat(http.entered()).isFalse();
        assertThat(current.take(Orders.class.getMethod("placePinningServerErrors"), new Orders())).as("another method").isNull();
        assertThat(http.entered()).isFalse();
        assertThat(current.take(place, new Orders())).isSameAs(http);
        assertThat(http.entered()).isTrue();
        assertThat(current.take(place, new Orders())).as("handed out once").isNull();
    }
}
