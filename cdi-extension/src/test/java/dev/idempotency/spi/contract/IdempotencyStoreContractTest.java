package dev.idempotency.spi.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.RecordDetails;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;

/**
 * The promises every {@link IdempotencyStore} keeps. A store's tests extend this class and
 * provide the store; stores whose clock cannot be driven keep the default {@link #elapse}, which
 * sleeps.
 */
public abstract class IdempotencyStoreContractTest {

    /** A lease long enough never to run out during a test. */
    protected static final Duration LONG = Duration.ofMinutes(10);

    private IdempotencyStore store;

    /**
     * @return a store with no records in it (or with keys no other test uses)
     * @throws Exception when it cannot be created
     */
    protected abstract IdempotencyStore createStore() throws Exception;

    /**
     * Closes what {@link #createStore()} opened.
     *
     * @param store the store
     * @throws Exception when closing fails
     */
    protected void closeStore(IdempotencyStore store) throws Exception {
    }

    /** @return a lease or ttl short enough to wait out; the store's expiry resolution decides */
    protected Duration shortDuration() {
        return Duration.ofSeconds(1);
    }

    /**
     * Lets time pass on the store's clock until something with the given lifetime has expired.
     *
     * @param duration the lifetime to outlive
     * @throws InterruptedException when interrupted
     */
    protected void elapse(Duration duration) throws InterruptedException {
        Thread.sleep(duration.toMillis() + 300);
    }

    @BeforeEach
    void openStore() throws Exception {
        store = createStore();
    }

    @AfterEach
    void close() throws Exception {
        closeStore(store);
    }

    /** @return the store under test */
    protected IdempotencyStore store() {
        return store;
    }

    /** @return a key no other test uses, shaped like a scoped key */
    protected static String freshKey() {
        return UUID.randomUUID().toString().replace("-", "") + "ctr";
    }

    /** @return a response as the HTTP layer stores it */
    protected static StoredOutcome sampleOutcome() {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("Location", List.of("http://localhost/api/payments/7"));
        headers.put("Content-Type", List.of("application/json"));
        return StoredOutcome.of(201, headers, "{\"id\":\"7\",\"amount\":1250}".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aFreeKeyIsAcquiredWithAnOwnerToken() {
        ClaimResult result = store.claim(freshKey(), "fp", LONG);

        assertThat(result).isInstanceOf(ClaimResult.Acquired.class);
        ClaimResult.Acquired acquired = (ClaimResult.Acquired) result;
        assertThat(acquired.owner()).isNotBlank();
        assertThat(acquired.takeover()).isFalse();
    }

    @Test
    void aSecondClaimSeesTheFirstInProgressWithItsFingerprint() {
        String key = freshKey();
        store.claim(key, "fp-first", LONG);

        ClaimResult second = store.claim(key, "fp-second", LONG);

        assertThat(second).isInstanceOf(ClaimResult.Existing.class);
        IdempotencyRecord record = ((ClaimResult.Existing) second).record();
        assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(record.fingerprint()).as("the first claimer's fingerprint, to detect a reused key").isEqualTo("fp-first");
        assertThat(record.outcome()).isNull();
    }

    @Test
    void aCompletedOutcomeIsReplayedByteForByte() {
        String key = freshKey();
        String owner = acquire(key, "fp");

        assertThat(store.complete(key, owner, sampleOutcome(), LONG)).isTrue();

        ClaimResult retry = store.claim(key, "fp", LONG);
        assertThat(retry).isInstanceOf(ClaimResult.Existing.class);
        IdempotencyRecord record = ((ClaimResult.Existing) retry).record();
        assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(record.fingerprint()).isEqualTo("fp");
        assertThat(record.outcome().status()).isEqualTo(201);
        assertThat(record.outcome().headers()).containsExactlyEntriesOf(sampleOutcome().headers());
        assertThat(record.outcome().body()).containsExactly(sampleOutcome().body());
        assertThat(record.outcome().bodyStored()).isTrue();
        assertThat(store.find(key)).contains(record);
    }

    @Test
    void anOutcomeWhoseBodyWasNotStoredKeepsThatFact() {
        String key = freshKey();
        String owner = acquire(key, "fp");
        StoredOutcome outcome = StoredOutcome.withoutBody(200, Map.of("ETag", List.of("\"v1\"")));

        store.complete(key, owner, outcome, LONG);

        StoredOutcome replayed = store.find(key).orElseThrow().outcome();
        assertThat(replayed.bodyStored()).isFalse();
        assertThat(replayed).isEqualTo(outcome);
    }

    @Test
    void anEmptyBodyRoundTrips() {
        String key = freshKey();
        String owner = acquire(key, "fp");
        StoredOutcome outcome = StoredOutcome.of(204, Map.of(), new byte[0]);

        store.complete(key, owner, outcome, LONG);

        assertThat(store.find(key).orElseThrow().outcome()).isEqualTo(outcome);
    }

    @Test
    void onlyTheOwnerCanCompleteOrRelease() {
        String key = freshKey();
        String owner = acquire(key, "fp");

        assertThat(store.complete(key, "someone-else", sampleOutcome(), LONG)).isFalse();
        assertThat(store.release(key, "someone-else")).isFalse();

        IdempotencyRecord record = store.find(key).orElseThrow();
        assertThat(record.state()).as("untouched by strangers").isEqualTo(RecordState.IN_PROGRESS);
        assertThat(store.complete(key, owner, sampleOutcome(), LONG)).isTrue();
    }

    @Test
    void aReleasedKeyCanBeClaimedAgainByANewOwner() {
        String key = freshKey();
        String first = acquire(key, "fp");

        assertThat(store.release(key, first)).isTrue();
        assertThat(store.find(key)).isEmpty();

        String second = acquire(key, "fp");
        assertThat(second).isNotEqualTo(first);
        assertThat(store.release(key, first)).as("the old token is dead").isFalse();
        assertThat(store.complete(key, first, sampleOutcome(), LONG)).isFalse();
    }

    @Test
    void aCompletedRecordCanNeitherBeCompletedAgainNorReleased() {
        String key = freshKey();
        String owner = acquire(key, "fp");
        store.complete(key, owner, sampleOutcome(), LONG);

        assertThat(store.complete(key, owner, StoredOutcome.of(500, Map.of(), new byte[0]), LONG)).isFalse();
        assertThat(store.release(key, owner)).isFalse();
        assertThat(store.find(key).orElseThrow().outcome()).isEqualTo(sampleOutcome());
    }

    @Test
    void anExpiredLeaseIsTakenOverAndTheOldOwnerLosesIt() throws Exception {
        String key = freshKey();
        String crashed = acquire(key, "fp", shortDuration(), LONG);

        elapse(shortDuration());

        ClaimResult takeover = store.claim(key, "fp", LONG, LONG);
        assertThat(takeover).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(((ClaimResult.Acquired) takeover).takeover()).isTrue();
        String newOwner = ((ClaimResult.Acquired) takeover).owner();
        assertThat(newOwner).isNotEqualTo(crashed);
        assertThat(store.complete(key, crashed, sampleOutcome(), LONG)).as("late completion by the crashed owner").isFalse();
        assertThat(store.markExecuted(key, crashed, LONG, LONG)).as("late mark by the crashed owner").isFalse();
        assertThat(store.release(key, crashed)).isFalse();
        assertThat(store.complete(key, newOwner, sampleOutcome(), LONG)).isTrue();
    }

    @Test
    void aSlowOwnerThatNobodyTookOverStillCompletesAfterItsLease() throws Exception {
        String key = freshKey();
        String slow = acquire(key, "fp", shortDuration(), LONG);

        elapse(shortDuration());

        assertThat(store.complete(key, slow, sampleOutcome(), LONG)).as("no competitor: the owner's outcome counts").isTrue();
        IdempotencyRecord record = store.find(key).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(record.outcome()).isEqualTo(sampleOutcome());
        assertThat(store.claim(key, "fp", LONG, LONG)).as("and it replays").isInstanceOf(ClaimResult.Existing.class);
    }

    @Test
    void aSlowOwnerThatNobodyTookOverStillMarksItsWorkExecutedOrReleasesIt() throws Exception {
        String marked = freshKey();
        String released = freshKey();
        String markingOwner = acquire(marked, "fp", shortDuration(), LONG);
        String releasingOwner = acquire(released, "fp", shortDuration(), LONG);

        elapse(shortDuration());

        assertThat(store.markExecuted(marked, markingOwner, LONG, LONG)).isTrue();
        ClaimResult retry = store.claim(marked, "fp", LONG, LONG);
        assertThat(retry).isInstanceOf(ClaimResult.Existing.class);
        assertThat(((ClaimResult.Existing) retry).record().state()).isEqualTo(RecordState.EXECUTED);
        assertThat(store.release(released, releasingOwner)).isTrue();
        assertThat(store.claim(released, "fp-other", LONG, LONG)).as("released: free for anyone")
                .isInstanceOf(ClaimResult.Acquired.class);
    }

    @Test
    void anExpiredLeaseIsTakenOverOnlyByTheSameRequest() throws Exception {
        String key = freshKey();
        String slow = acquire(key, "fp-first", shortDuration(), LONG);

        elapse(shortDuration());

        ClaimResult other = store.claim(key, "fp-other", LONG, LONG);
        assertThat(other).as("another request with the key").isInstanceOf(ClaimResult.Existing.class);
        IdempotencyRecord record = ((ClaimResult.Existing) other).record();
        assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(record.fingerprint()).as("the first request's, so the other is refused as a reused key")
                .isEqualTo("fp-first");
        assertThat(store.complete(key, slow, sampleOutcome(), LONG)).as("the owner still holds it").isTrue();
        assertThat(store.find(key).orElseThrow().fingerprint()).isEqualTo("fp-first");
    }

    @Test
    void anAbandonedClaimBindsItsKeyToItsRequestUntilItsRetentionEnds() throws Exception {
        String key = freshKey();
        Duration retention = shortDuration().multipliedBy(3);
        acquire(key, "fp-first", shortDuration(), retention);

        elapse(shortDuration());
        ClaimResult other = store.claim(key, "fp-other", LONG, LONG);
        assertThat(other).as("lease over, retention not").isInstanceOf(ClaimResult.Existing.class);
        assertThat(((ClaimResult.Existing) other).record().fingerprint()).isEqualTo("fp-first");

        elapse(retention);
        ClaimResult free = store.claim(key, "fp-other", LONG, LONG);
        assertThat(free).as("retention over: the key is free").isInstanceOf(ClaimResult.Acquired.class);
        assertThat(((ClaimResult.Acquired) free).takeover()).as("a claim of a free key is no takeover").isFalse();
    }

    @Test
    void aCompletedRecordExpiresAfterItsRetention() throws Exception {
        String key = freshKey();
        String owner = acquire(key, "fp");
        store.complete(key, owner, sampleOutcome(), shortDuration());
        assertThat(store.find(key)).isPresent();

        elapse(shortDuration());

        assertThat(store.find(key)).isEmpty();
        assertThat(store.claim(key, "fp", LONG)).isInstanceOf(ClaimResult.Acquired.class);
    }

    @Test
    void aCompletedRecordOutlivesItsLease() throws Exception {
        String key = freshKey();
        String owner = acquire(key, "fp", shortDuration());
        store.complete(key, owner, sampleOutcome(), LONG);

        elapse(shortDuration());

        assertThat(store.find(key)).get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    void anExecutedRecordIsNeverClaimedAgainAndOnlyItsOwnerCompletesIt() {
        String key = freshKey();
        String owner = acquire(key, "fp");

        assertThat(store.markExecuted(key, owner, LONG, LONG)).isTrue();

        ClaimResult retry = store.claim(key, "fp", LONG);
        assertThat(retry).isInstanceOf(ClaimResult.Existing.class);
        assertThat(((ClaimResult.Existing) retry).record().state()).isEqualTo(RecordState.EXECUTED);
        assertThat(store.complete(key, "someone-else", sampleOutcome(), LONG)).isFalse();
        assertThat(store.release(key, "someone-else")).isFalse();
        assertThat(store.find(key)).get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.EXECUTED);
        assertThat(store.complete(key, owner, sampleOutcome(), LONG)).isTrue();
        assertThat(store.find(key).orElseThrow().outcome()).isEqualTo(sampleOutcome());
    }

    @Test
    void theOwnerReleasesAnExecutedRecordWhenItsTransactionRolledBack() {
        String key = freshKey();
        String owner = acquire(key, "fp");
        store.markExecuted(key, owner, LONG, LONG);

        assertThat(store.release(key, owner)).isTrue();

        assertThat(store.find(key)).isEmpty();
        assertThat(store.claim(key, "fp", LONG)).as("nothing happened: a retry runs").isInstanceOf(ClaimResult.Acquired.class);
    }

    @Test
    void onlyTheOwnerOfALiveClaimCanMarkItExecuted() throws Exception {
        String key = freshKey();
        String owner = acquire(key, "fp");
        assertThat(store.markExecuted(key, "someone-else", LONG, LONG)).isFalse();
        assertThat(store.find(key)).get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.IN_PROGRESS);

        store.complete(key, owner, sampleOutcome(), LONG);
        assertThat(store.markExecuted(key, owner, LONG, LONG)).as("already completed").isFalse();

        String late = freshKey();
        String slow = acquire(late, "fp", shortDuration(), LONG);
        elapse(shortDuration());
        String newOwner = ((ClaimResult.Acquired) store.claim(late, "fp", LONG, LONG)).owner();
        assertThat(store.markExecuted(late, slow, LONG, LONG)).as("taken over after its lease").isFalse();
        assertThat(store.markExecuted(late, newOwner, LONG, LONG)).isTrue();
    }

    /**
     * The library asks a store once more when a mark failed: its first answer may have been lost
     * after the store applied it. The repeat must be answered as the first, and change nothing.
     */
    @Test
    void aMarkRepeatedByItsOwnerIsAnsweredAsTheFirstAndChangesNothing() throws Exception {
        String key = freshKey();
        String owner = acquire(key, "fp");
        assertThat(store.markExecuted(key, owner, shortDuration(), LONG)).isTrue();

        assertThat(store.markExecuted(key, owner, LONG, LONG)).as("repeated").isTrue();
        assertThat(store.markExecuted(key, "someone-else", LONG, LONG)).as("another owner").isFalse();
        elapse(shortDuration());
        assertThat(store.find(key)).as("the outcome is due by the first mark's lease").get()
                .extracting(IdempotencyRecord::state).isEqualTo(RecordState.OUTCOME_LOST);
        assertThat(store.markExecuted(key, owner, LONG, LONG)).as("repeated after its lease").isTrue();
        assertThat(store.complete(key, owner, sampleOutcome(), LONG)).isTrue();
        assertThat(store.markExecuted(key, owner, LONG, LONG)).as("once completed").isFalse();
        assertThat(store.find(key).orElseThrow().outcome()).isEqualTo(sampleOutcome());
    }

    @Test
    void anExecutedRecordWhoseOutcomeNeverCameIsReportedLostAndStillNotClaimed() throws Exception {
        String key = freshKey();
        String owner = acquire(key, "fp");
        store.markExecuted(key, owner, shortDuration(), LONG);

        elapse(shortDuration());

        ClaimResult retry = store.claim(key, "fp", LONG);
        assertThat(retry).isInstanceOf(ClaimResult.Existing.class);
        assertThat(((ClaimResult.Existing) retry).record().state()).isEqualTo(RecordState.OUTCOME_LOST);
        assertThat(store.complete(key, owner, sampleOutcome(), LONG)).as("a late outcome is still welcome").isTrue();
        assertThat(store.find(key)).get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    void anExecutedRecordExpiresAfterItsRetention() throws Exception {
        String key = freshKey();
        String owner = acquire(key, "fp");
        store.markExecuted(key, owner, shortDuration(), shortDuration());

        elapse(shortDuration());

        assertThat(store.find(key)).isEmpty();
        assertThat(store.claim(key, "fp", LONG)).isInstanceOf(ClaimResult.Acquired.class);
    }

    @Test
    void unknownKeysAreNotFound() {
        assertThat(store.find(freshKey())).isEmpty();
    }

    @Test
    void anInspectedRecordIsTheOneFindReportsWithTimesInTheirOrder() {
        String key = freshKey();
        assertThat(store.inspect(key)).isEmpty();
        String owner = acquire(key, "fp");

        RecordDetails claimed = store.inspect(key).orElseThrow();

        assertThat(claimed.record()).isEqualTo(store.find(key).orElseThrow());
        assertThat(claimed.record().state()).isEqualTo(RecordState.IN_PROGRESS);
        assertTimesInOrder(claimed);
        if (claimed.claimedAt() != null && claimed.leaseEnds() != null) {
            assertThat(Duration.between(claimed.claimedAt(), claimed.leaseEnds())).as("the lease given to the claim")
                    .isBetween(LONG.minusSeconds(1), LONG.plusSeconds(1));
        }

        assertThat(store.complete(key, owner, sampleOutcome(), LONG.multipliedBy(2))).isTrue();
        RecordDetails completed = store.inspect(key).orElseThrow();

        assertThat(completed.record()).isEqualTo(store.find(key).orElseThrow());
        assertThat(completed.record().outcome()).isEqualTo(sampleOutcome());
        assertThat(completed.leaseEnds()).as("a completed record has no lease").isNull();
        assertTimesInOrder(completed);
        if (claimed.claimedAt() != null && completed.claimedAt() != null) {
            assertThat(completed.claimedAt()).as("completing is no new claim (a store on this node's clock may estimate)")
                    .isBetween(claimed.claimedAt().minusSeconds(1), claimed.claimedAt().plusSeconds(1));
        }
    }

    @Test
    void anInspectedExecutedRecordShowsWhenItsOutcomeCountsAsLost() {
        String key = freshKey();
        String owner = acquire(key, "fp");
        assertThat(store.markExecuted(key, owner, LONG, LONG.multipliedBy(3))).isTrue();

        RecordDetails executed = store.inspect(key).orElseThrow();

        assertThat(executed.record().state()).isEqualTo(RecordState.EXECUTED);
        assertTimesInOrder(executed);
    }

    private static void assertTimesInOrder(RecordDetails details) {
        if (details.claimedAt() != null && details.leaseEnds() != null) {
            assertThat(details.leaseEnds()).as("the lease ends after the claim").isAfter(details.claimedAt());
        }
        if (details.leaseEnds() != null && details.expiresAt() != null) {
            assertThat(details.expiresAt()).as("the record outlives its lease").isAfterOrEqualTo(details.leaseEnds());
        }
        if (details.claimedAt() != null && details.expiresAt() != null) {
            assertThat(details.expiresAt()).as("the record expires after its claim").isAfter(details.claimedAt());
        }
    }

    @Test
    void ofManyConcurrentClaimsOfOneKeyExactlyOneAcquires() throws Exception {
        int threads = 16;
        int keys = 50;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int k = 0; k < keys; k++) {
                String key = freshKey();
                CountDownLatch start = new CountDownLatch(1);
                List<Future<ClaimResult>> results = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    Callable<ClaimResult> claim = () -> {
                        start.await();
                        return store.claim(key, "fp", LONG);
                    };
                    results.add(pool.submit(claim));
                }
                start.countDown();
                int acquired = 0;
                for (Future<ClaimResult> result : results) {
                    if (result.get(30, TimeUnit.SECONDS) instanceof ClaimResult.Acquired) {
                        acquired++;
                    }
                }
                assertThat(acquired).as("claims acquired for one key").isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Crashed owners' claims, then a storm of retries after the lease: half of them the same request. */
    @Test
    void ofManyConcurrentClaimsOfOneExpiredLeaseExactlyOneSameRequestTakesItOver() throws Exception {
        int keys = 10;
        int threads = 16;
        List<String> keyList = new ArrayList<>();
        List<String> crashed = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            String key = freshKey();
            keyList.add(key);
            crashed.add(acquire(key, "fp", shortDuration(), LONG));
        }
        elapse(shortDuration());
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int k = 0; k < keys; k++) {
                String key = keyList.get(k);
                CountDownLatch start = new CountDownLatch(1);
                List<Future<ClaimResult>> results = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    String fingerprint = t % 2 == 0 ? "fp" : "fp-other-" + t;
                    results.add(pool.submit(() -> {
                        start.await();
                        return store.claim(key, fingerprint, LONG, LONG);
                    }));
                }
                start.countDown();
                List<ClaimResult.Acquired> acquired = new ArrayList<>();
                for (Future<ClaimResult> result : results) {
                    ClaimResult claim = result.get(30, TimeUnit.SECONDS);
                    if (claim instanceof ClaimResult.Acquired a) {
                        acquired.add(a);
                    } else {
                        IdempotencyRecord record = ((ClaimResult.Existing) claim).record();
                        assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
                        assertThat(record.fingerprint()).isEqualTo("fp");
                    }
                }
                assertThat(acquired).as("takeovers of one expired lease").hasSize(1);
                assertThat(acquired.get(0).takeover()).isTrue();
                assertThat(store.complete(key, crashed.get(k), sampleOutcome(), LONG)).isFalse();
                assertThat(store.complete(key, acquired.get(0).owner(), sampleOutcome(), LONG)).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void concurrentOwnersOfDistinctKeysDoNotInterfere() throws Exception {
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Set<String>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    Set<String> completed = new HashSet<>();
                    for (int i = 0; i < 100; i++) {
                        String key = freshKey();
                        String owner = acquire(key, "fp");
                        if (i % 3 == 0) {
                            assertThat(store.release(key, owner)).isTrue();
                        } else if (store.complete(key, owner, sampleOutcome(), LONG)) {
                            completed.add(key);
                        }
                    }
                    return completed;
                }));
            }
            for (Future<Set<String>> result : results) {
                Set<String> completed = result.get(60, TimeUnit.SECONDS);
                assertThat(completed).hasSize(66);
                for (String key : completed) {
                    assertThat(store.find(key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Claims a free key and returns its owner token. */
    protected String acquire(String key, String fingerprint) {
        return acquire(key, fingerprint, LONG);
    }

    /** Claims a free key with a lease (kept for the lease only) and returns its owner token. */
    protected String acquire(String key, String fingerprint, Duration lease) {
        return acquire(key, fingerprint, lease, lease);
    }

    /** Claims a free key with a lease and a retention, and returns its owner token. */
    protected String acquire(String key, String fingerprint, Duration lease, Duration retention) {
        ClaimResult result = store.claim(key, fingerprint, lease, retention);
        assertThat(result).as("claim of a free key").isInstanceOf(ClaimResult.Acquired.class);
        return ((ClaimResult.Acquired) result).owner();
    }
}
