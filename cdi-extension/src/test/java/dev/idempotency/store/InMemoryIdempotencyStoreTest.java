package dev.idempotency.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.spi.contract.IdempotencyStoreContractTest;

/** The in-memory store keeps the store contract, on a clock the test drives. */
class InMemoryIdempotencyStoreTest extends IdempotencyStoreContractTest {

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);

    @Override
    protected IdempotencyStore createStore() {
        return new InMemoryIdempotencyStore(1_000_000, clock::get);
    }

    @Override
    protected void elapse(Duration duration) {
        clock.addAndGet(duration.toNanos() + 1);
    }

    @Test
    void aFullStoreRefusesNewClaimsInsteadOfEvictingLiveRecords() {
        InMemoryIdempotencyStore small = new InMemoryIdempotencyStore(2, clock::get);
        String first = ((ClaimResult.Acquired) small.claim("k1", "fp", LONG)).owner();
        small.claim("k2", "fp", LONG);

        assertThatThrownBy(() -> small.claim("k3", "fp", LONG))
                .isInstanceOf(IdempotencyStoreException.class)
                .hasMessageStartingWith("IDEMP0405");
        assertThat(small.find("k1")).as("live records are kept").isPresent();

        small.release("k1", first);
        assertThat(small.claim("k3", "fp", LONG)).isInstanceOf(ClaimResult.Acquired.class);
    }

    @Test
    void expiredRecordsAreSweptSoMemoryReturns() {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(10_000, clock::get);
        for (int i = 0; i < 5_000; i++) {
            String key = "k" + i;
            String owner = ((ClaimResult.Acquired) store.claim(key, "fp", Duration.ofSeconds(1))).owner();
            store.complete(key, owner, sampleOutcome(), Duration.ofSeconds(1));
        }
        assertThat(store.size()).isEqualTo(5_000);

        elapse(Duration.ofSeconds(2));
        store.claim("trigger", "fp", LONG);

        assertThat(store.size()).as("only the new claim is left").isEqualTo(1);
    }

    @Test
    void aFullStoreAcceptsClaimsAgainOnceRecordsExpire() {
        InMemoryIdempotencyStore small = new InMemoryIdempotencyStore(1, clock::get);
        small.claim("k1", "fp", Duration.ofSeconds(1));

        elapse(Duration.ofSeconds(2));

        assertThat(small.claim("k2", "fp", LONG)).isInstanceOf(ClaimResult.Acquired.class);
    }

    @Test
    void theCapacityHoldsUnderConcurrentClaimsOfDistinctKeys() throws Exception {
        for (int round = 0; round < 200; round++) {
            InMemoryIdempotencyStore tiny = new InMemoryIdempotencyStore(1, clock::get);
            java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.atomic.AtomicInteger acquired = new java.util.concurrent.atomic.AtomicInteger();
            Thread[] threads = new Thread[8];
            for (int t = 0; t < threads.length; t++) {
                String key = "k" + t;
                threads[t] = new Thread(() -> {
                    try {
                        start.await();
                        tiny.claim(key, "fp", LONG);
                        acquired.incrementAndGet();
                    } catch (IdempotencyStoreException | InterruptedException e) {
                        // full
                    }
                });
                threads[t].start();
            }
            start.countDown();
            for (Thread thread : threads) {
                thread.join();
            }
            assertThat(acquired.get()).as("round " + round).isEqualTo(1);
            assertThat(tiny.size()).isEqualTo(1);
        }
    }

    @Test
    void aStoreFullByBytesRefusesNewKeysButCompletesAndReplaysTheOnesItHolds() {
        InMemoryIdempotencyStore small = new InMemoryIdempotencyStore(1000, 10_000, clock::get);
        StoredOutcome large = StoredOutcome.of(200, java.util.Map.of(), new byte[4000]);
        String first = ((ClaimResult.Acquired) small.claim("k1", "fp", LONG)).owner();
        String second = ((ClaimResult.Acquired) small.claim("k2", "fp", LONG)).owner();
        assertThat(small.complete("k1", first, large, LONG)).isTrue();
        assertThat(small.complete("k2", second, large, LONG)).as("a completion is never refused for room").isTrue();
        assertThat(small.bytes()).isGreaterThanOrEqualTo(10_000);

        assertThatThrownBy(() -> small.claim("k3", "fp", LONG))
                .isInstanceOf(IdempotencyStoreException.class).hasMessageStartingWith("IDEMP0409");
        ClaimResult replay = small.claim("k1", "fp", LONG);
        assertThat(replay).isInstanceOf(ClaimResult.Existing.class);
        assertThat(((ClaimResult.Existing) replay).record().outcome().body()).hasSize(4000);

        clock.addAndGet(LONG.toNanos() + Duration.ofSeconds(2).toNanos());
        assertThat(small.claim("k3", "fp", LONG)).as("room again once records expired").isInstanceOf(ClaimResult.Acquired.class);
        assertThat(small.bytes()).isLessThan(10_000);
    }

    @Test
    void releasedAndSweptRecordsGiveTheirBytesBack() {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(1000, Long.MAX_VALUE, clock::get);
        String owner = ((ClaimResult.Acquired) store.claim("k1", "fp", LONG)).owner();
        long claimed = store.bytes();
        assertThat(claimed).isPositive();

        assertThat(store.release("k1", owner)).isTrue();

        assertThat(store.bytes()).isZero();
    }

    @Test
    void aSweepKeepsOneTicketPerLiveRecordAndDropsTheTicketsOfRecordsGiveBack() {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(10_000, clock::get);
        Duration lease = Duration.ofSeconds(5);
        for (int i = 0; i < 3_000; i++) {
            String key = "k" + i;
            String owner = ((ClaimResult.Acquired) store.claim(key, "fp", lease, LONG)).owner();
            if (i % 3 == 0) {
                store.complete(key, owner, sampleOutcome(), LONG);
            } else if (i % 3 == 1) {
                store.release(key, owner);
            }
        }
        assertThat(store.expiryTickets()).as("one ticket per claim made").isEqualTo(3_000);

        elapse(lease.plusSeconds(1));
        store.find("trigger");

        assertThat(store.size()).as("completed and in-progress records are kept for their retention").isEqualTo(2_000);
        assertThat(store.expiryTickets()).as("one ticket per live record, the given-back claims' dropped")
                .isEqualTo(2_000);
        assertThat(store.find("k0")).as("a completed record after its claim's lease").isPresent();
        assertThat(store.find("k2")).as("an abandoned claim before its retention ends").isPresent();

        elapse(LONG);
        store.find("trigger");

        assertThat(store.size()).isZero();
        assertThat(store.expiryTickets()).isZero();
        assertThat(store.bytes()).isZero();
    }

    @Test
    void aRecordKeptShorterThanItsClaimIsSweptWhenItExpires() {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(10, clock::get);
        String owner = ((ClaimResult.Acquired) store.claim("k1", "fp", LONG, LONG)).owner();
        store.complete("k1", owner, sampleOutcome(), Duration.ofSeconds(1));

        elapse(Duration.ofSeconds(2));
        store.find("trigger");

        assertThat(store.size()).as("swept at its own expiry, not its claim's").isZero();
        assertThat(store.expiryTickets()).as("the claim's ticket dropped at its first look, a second after the claim")
                .isZero();
    }

    @Test
    void claimsGivenBackOverAndOverDoNotPileUpTicketsWhateverTheLease() {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(10, clock::get);
        Duration lease = Duration.ofSeconds(60); // the default lease: 20 s of claims made within one
        for (int i = 0; i < 20_000; i++) {
            String owner = ((ClaimResult.Acquired) store.claim("hot", "fp", lease, LONG)).owner();
            store.release("hot", owner);
            clock.addAndGet(Duration.ofMillis(1).toNanos());
        }

        assertThat(store.expiryTickets()).as("tickets of the last two seconds' claims only, not one per claim made")
                .isLessThanOrEqualTo(3_000);
        elapse(Duration.ofSeconds(3));
        store.find("trigger");
        assertThat(store.expiryTickets()).isZero();
    }

    /**
     * Claims given back after the sweep's first look at them (requests that failed after a second
     * or more), and executed records given back (their transaction rolled back): their tickets
     * stayed filed for the rest of the lease, or of the ttl, in memory no bound counts (about
     * 130 bytes each: 17 million, 2 GB, for 200 such failures a second and a lease of a day).
     */
    @Test
    void recordsGivenBackAfterTheSweepLookedAtThemLeaveNoTicketsForTheirLeaseOrTtl() {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(100_000, clock::get);
        Duration lease = Duration.ofHours(1);
        Duration ttl = Duration.ofDays(1);
        String[] owners = new String[10_000];
        for (int i = 0; i < owners.length; i++) {
            owners[i] = ((ClaimResult.Acquired) store.claim("k" + i, "fp", lease, ttl)).owner();
            if (i % 2 == 0) {
                store.markExecuted("k" + i, owners[i], lease, ttl);
            }
        }
        elapse(Duration.ofSeconds(2));
        store.find("trigger"); // the sweep's first look at every claim
        elapse(Duration.ofSeconds(1));
        for (int i = 0; i < owners.length; i++) {
            assertThat(store.release("k" + i, owners[i])).isTrue();
        }

        elapse(Duration.ofSeconds(10));
        store.find("trigger");

        assertThat(store.size()).isZero();
        assertThat(store.expiryTickets()).as("tickets of records given back 10 s ago").isZero();
    }

    @Test
    void concurrentClaimsCompletionsAndReleasesLeaveNothingBehindOnceExpired() throws Exception {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(100_000, clock::get);
        int threads = 8;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int worker = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 5_000; i++) {
                        String key = "k" + (i % 50);
                        ClaimResult claim = store.claim(key, "fp" + worker, Duration.ofSeconds(1), Duration.ofSeconds(2));
                        if (claim instanceof ClaimResult.Acquired acquired) {
                            if (i % 2 == 0) {
                                store.complete(key, acquired.owner(), sampleOutcome(), Duration.ofSeconds(1 + i % 3));
                            } else {
                                store.release(key, acquired.owner());
                            }
                        }
                        if (worker == 0 && i % 10 == 0) {
                            clock.addAndGet(Duration.ofMillis(50).toNanos()); // sweeps run as time passes
                        }
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> each : done) {
                each.get();
            }
        } finally {
            pool.shutdownNow();
        }

        elapse(Duration.ofSeconds(5));
        store.find("trigger");

        assertThat(store.size()).as("every record expired and was swept").isZero();
        assertThat(store.bytes()).isZero();
        assertThat(store.expiryTickets()).isZero();
    }

    @Test
    void aRetentionBeyondTheClocksRangeNeitherWrapsIntoThePastNorHangsTheSweep() {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(10, clock::get);
        elapse(Duration.ofSeconds(5)); // the expiry below is then past the clock's range from the store's start
        Duration almostForever = Duration.ofNanos(Long.MAX_VALUE - Duration.ofSeconds(1).toNanos());
        String owner = ((ClaimResult.Acquired) store.claim("k1", "fp", Duration.ofSeconds(1), almostForever)).owner();
        store.complete("k1", owner, sampleOutcome(), almostForever);

        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            elapse(Duration.ofSeconds(3));
            store.find("trigger");
            elapse(Duration.ofSeconds(3));
            store.find("trigger");
        }, "a sweep that keeps taking the same ticket never ends");

        assertThat(store.find("k1")).as("kept, and replayed").isPresent();
        assertThat(store.size()).isEqualTo(1);
    }
}
