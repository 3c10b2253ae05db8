package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.persistence.EntityManagerFactory;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.idempotency.jpa.testing.ResourceLocalTransactions;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;

/**
 * A claim that loses a takeover race on MariaDB, whose default isolation is REPEATABLE READ: it
 * read the key's row, another claim changed the row (and committed) before the loser's UPDATE,
 * which then matched nothing. What the loser answers must be what the store holds now, not the
 * row as the loser's transaction first saw it (its snapshot), and not a row whose time is over.
 * On Hibernate the loser's transaction holds its snapshot from its first read; EclipseLink outside
 * JTA reads that row outside the transaction (as it does on a server, where the snapshot holds).
 */
class TakeoverRaceTest {

    private static final String URL = "jdbc:mariadb://127.0.0.1:3306/test";
    private static final Duration SHORT = Duration.ofSeconds(1);
    private static final Duration LEASE = Duration.ofSeconds(60);
    private static final Duration RETENTION = Duration.ofHours(1);

    private EntityManagerFactory factory;
    private JpaRecords store;
    private JpaRecords loser;

    private void open(String unit) throws Exception {
        factory = Databases.fresh(URL, "root", "mariadb.sql", unit);
        store = new JpaRecords(new ResourceLocalTransactions(factory));
        loser = new JpaRecords(new ResourceLocalTransactions(factory));
    }

    @AfterEach
    void close() {
        if (factory != null) {
            factory.close();
        }
    }

    /** Runs the other claim's work once, between the loser's read and its UPDATE. */
    private void between(Runnable otherClaim) {
        AtomicBoolean ran = new AtomicBoolean();
        loser.beforeTakeover = () -> {
            if (ran.compareAndSet(false, true)) {
                otherClaim.run();
            }
        };
    }

    /**
     * A takeover whose UPDATE waited for the row's lock (the slow owner's transaction held it, having
     * marked its work, then rolled back): its lease ends were worked out before the wait, so the
     * wait came out of its new lease, and a retry took the claim over while it still ran.
     */
    @ParameterizedTest
    @ValueSource(strings = {"idempotency-test-hibernate", "idempotency-test"})
    void aTakeoverThatWaitedForTheRowsLockKeepsItsWholeLease(String unit) throws Exception {
        open(unit);
        assertThat(store.claim("k", "fp", SHORT, RETENTION)).isInstanceOf(ClaimResult.Acquired.class);
        Thread.sleep(1_500); // the first owner's lease is over
        between(() -> {
            try {
                Thread.sleep(2_000); // the UPDATE waits for the row's lock
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        ClaimResult taken = loser.claim("k", "fp", Duration.ofSeconds(3), RETENTION);
        assertThat(taken).isInstanceOf(ClaimResult.Acquired.class);

        Thread.sleep(1_500); // within the taker's three seconds, counted from its takeover
        assertThat(store.claim("k", "fp", LEASE, RETENTION)).as("the taker still runs: its lease is not over")
                .isInstanceOf(ClaimResult.Existing.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"idempotency-test-hibernate", "idempotency-test"})
    void aLoserOfTheRaceForAnExpiredRecordDoesNotReplayItsOutcome(String unit) throws Exception {
        open(unit);
        ClaimResult.Acquired first = (ClaimResult.Acquired) store.claim("k", "fp-first", SHORT, SHORT);
        assertThat(store.complete("k", first.owner(), StoredOutcome.of(201, Map.of(),
                "{\"old\":true}".getBytes(StandardCharsets.UTF_8)), SHORT)).isTrue();
        Thread.sleep(1_500); // the completed record's retention is over: the key is free
        between(() -> assertThat(store.claim("k", "fp-winner", LEASE, RETENTION)).isInstanceOf(ClaimResult.Acquired.class));

        ClaimResult answer = loser.claim("k", "fp-loser", LEASE, RETENTION);

        IdempotencyRecord held = store.find("k").orElseThrow();
        assertThat(held.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(held.fingerprint()).isEqualTo("fp-winner");
        assertThat(answer).as("the loser answers with the winner's claim").isEqualTo(new ClaimResult.Existing(held));
    }

    @ParameterizedTest
    @ValueSource(strings = {"idempotency-test-hibernate", "idempotency-test"})
    void aLoserOfTheRaceForAKeyFreedMeanwhileAcquiresIt(String unit) throws Exception {
        open(unit);
        assertThat(store.claim("k", "fp-first", SHORT, SHORT)).isInstanceOf(ClaimResult.Acquired.class);
        Thread.sleep(1_500); // an abandoned claim whose retention is over: the key is free
        between(() -> {
            ClaimResult.Acquired winner = (ClaimResult.Acquired) store.claim("k", "fp-winner", LEASE, RETENTION);
            assertThat(store.release("k", winner.owner())).isTrue(); // its method failed: the key is free again
        });

        ClaimResult answer = loser.claim("k", "fp-loser", LEASE, RETENTION);

        assertThat(answer).as("the key is free: the loser claims it, no 409").isInstanceOf(ClaimResult.Acquired.class);
        assertThat(store.find("k")).get().extracting(IdempotencyRecord::state, IdempotencyRecord::fingerprint)
                .containsExactly(RecordState.IN_PROGRESS, "fp-loser");
        assertThat(store.complete("k", ((ClaimResult.Acquired) answer).owner(), StoredOutcome.withoutBody(204, Map.of()),
                RETENTION)).as("the loser owns the key").isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"idempotency-test-hibernate", "idempotency-test"})
    void aLoserOfTheRaceDoesNotAnswerWithTheWinnersExpiredClaim(String unit) throws Exception {
        open(unit);
        assertThat(store.claim("k", "fp-first", SHORT, SHORT)).isInstanceOf(ClaimResult.Acquired.class);
        Thread.sleep(1_500);
        between(() -> {
            // the winner's claim is over by the time the loser looks at it
            assertThat(store.claim("k", "fp-winner", Duration.ofMillis(200), Duration.ofMillis(200)))
                    .isInstanceOf(ClaimResult.Acquired.class);
            sleep(400);
        });

        ClaimResult answer = loser.claim("k", "fp-loser", LEASE, RETENTION);

        assertThat(answer).as("the winner's claim is over: the key is free, no 409").isInstanceOf(ClaimResult.Acquired.class);
        assertThat(store.find("k")).get().extracting(IdempotencyRecord::state, IdempotencyRecord::fingerprint)
                .containsExactly(RecordState.IN_PROGRESS, "fp-loser");
    }

    /**
     * A retry taking over a claim whose lease ended must take over that claim, not a new one the
     * key got meanwhile: the abandoned claim's owner released it late (its method failed) and
     * another retry claimed the key afresh, in a new row whose version starts where the old one's
     * did. The taker's UPDATE matched the new row by key and version alone, and two callers ran
     * the key at once.
     */
    @ParameterizedTest
    @ValueSource(strings = {"idempotency-test-hibernate", "idempotency-test"})
    void aTakeoverDoesNotSeizeAClaimMadeAfreshInARowReinsertedMeanwhile(String unit) throws Exception {
        open(unit);
        ClaimResult.Acquired abandoned = (ClaimResult.Acquired) store.claim("k", "fp", SHORT, RETENTION);
        Thread.sleep(1_500); // its lease is over: the same request may take it over
        ClaimResult.Acquired[] fresh = new ClaimResult.Acquired[1];
        between(() -> {
            assertThat(store.release("k", abandoned.owner())).isTrue(); // its owner's method failed, late
            fresh[0] = (ClaimResult.Acquired) store.claim("k", "fp", LEASE, RETENTION);
            assertThat(fresh[0].takeover()).isFalse();
        });

        ClaimResult answer = loser.claim("k", "fp", LEASE, RETENTION);

        assertThat(answer).as("the fresh claim is live and its own: the retry is told it is in progress")
                .isInstanceOf(ClaimResult.Existing.class);
        assertThat(((ClaimResult.Existing) answer).record().state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(store.complete("k", fresh[0].owner(), StoredOutcome.withoutBody(204, Map.of()), RETENTION))
                .as("the fresh claim's owner still owns the key").isTrue();
    }

    /**
     * The same for a row whose retention was over: the request that found it free must not overwrite
     * a claim made afresh in its place meanwhile, whatever its body.
     */
    @ParameterizedTest
    @ValueSource(strings = {"idempotency-test-hibernate", "idempotency-test"})
    void anOverwriteOfAnExpiredRowDoesNotSeizeAClaimMadeAfreshInItsPlace(String unit) throws Exception {
        open(unit);
        assertThat(store.claim("k", "fp-first", SHORT, SHORT)).isInstanceOf(ClaimResult.Acquired.class);
        Thread.sleep(1_500); // its retention is over: the key is free for any request
        ClaimResult.Acquired[] fresh = new ClaimResult.Acquired[1];
        between(() -> {
            // another request overwrites the expired row first, its method fails: the row is deleted
            ClaimResult.Acquired winner = (ClaimResult.Acquired) store.claim("k", "fp-winner", LEASE, RETENTION);
            assertThat(store.release("k", winner.owner())).isTrue();
            // and a third claims the free key afresh, in a new row
            fresh[0] = (ClaimResult.Acquired) store.claim("k", "fp-fresh", LEASE, RETENTION);
        });

        ClaimResult answer = loser.claim("k", "fp-loser", LEASE, RETENTION);

        assertThat(answer).as("the key is held by the fresh claim: the other body is answered with it")
                .isInstanceOf(ClaimResult.Existing.class);
        assertThat(store.find("k")).get().extracting(IdempotencyRecord::state, IdempotencyRecord::fingerprint)
                .containsExactly(RecordState.IN_PROGRESS, "fp-fresh");
        assertThat(store.complete("k", fresh[0].owner(), StoredOutcome.withoutBody(204, Map.of()), RETENTION))
                .as("the fresh claim's owner still owns the key").isTrue();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
