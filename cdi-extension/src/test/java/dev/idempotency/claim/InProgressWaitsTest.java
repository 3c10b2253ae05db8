package dev.idempotency.claim;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyEvent;
import dev.idempotency.Idempotent;
import dev.idempotency.InProgressDuplicates;
import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.config.Policies;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.store.DelegatingStore;
import dev.idempotency.store.InMemoryIdempotencyStore;
import dev.idempotency.store.RecordingStore;

/**
 * The waiting of duplicates in flight, on a real in-memory store and real threads: who wakes them,
 * what they end with, and the bound. The HTTP and non-HTTP paths through it are in the integration
 * tests (HttpContractChecks, NonHttpIT), on every store.
 */
class InProgressWaitsTest {

    static class Orders {
        @Idempotent(inProgress = InProgressDuplicates.WAIT, maxWait = "PT5S")
        public void place() {
        }

        @Idempotent(inProgress = InProgressDuplicates.WAIT, maxWait = "PT0.3S")
        public void placeBriefly() {
        }

        @Idempotent(inProgress = InProgressDuplicates.WAIT, lease = "PT0.2S", maxWait = "PT0.2S")
        public void placeOnAShortLease() {
        }
    }

    private static final String KEY = "k-1";
    private static final String PRINT = "fp-1";

    private final InMemoryIdempotencyStore memory = new InMemoryIdempotencyStore(1_000, System::nanoTime);
    private final RecordingStore store = new RecordingStore(memory);
    private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
    private final EventPublisher publisher = new EventPublisher(List.of(events::add));
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    private static IdempotencyPolicy policy(String method) {
        return Policies.unconfigured(Orders.class, method);
    }

    private String owner(IdempotencyPolicy policy) {
        return ((ClaimResult.Acquired) store.claim(KEY, PRINT, policy.lease(), policy.ttl())).owner();
    }

    private ClaimResult.Existing found(IdempotencyPolicy policy) {
        return (ClaimResult.Existing) store.claim(KEY, PRINT, policy.lease(), policy.ttl());
    }

    private CompletableFuture<ClaimResult> waitFor(InProgressWaits waits, IdempotencyPolicy policy) {
        ClaimResult.Existing found = found(policy);
        return CompletableFuture.supplyAsync(() -> waits.await(store, policy, KEY, PRINT, found), threads);
    }

    /** Back-offs far longer than the tests wait: only a wake-up can end these waits in time. */
    private static InProgressWaits onlyWokenUp(int maxWaiting) {
        return new InProgressWaits(maxWaiting, Duration.ofSeconds(30), Duration.ofSeconds(30));
    }

    private static void awaitWaiting(InProgressWaits waits, int count) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (waits.waiting() < count && System.nanoTime() < until) {
            Thread.sleep(5);
        }
        assertThat(waits.waiting()).isEqualTo(count);
    }

    @Test
    void duplicatesWokenByTheCompletionOnThisNodeGetTheStoredOutcome() throws Exception {
        IdempotencyPolicy policy = policy("place");
        InProgressWaits waits = onlyWokenUp(8);
        OwnedClaim first = new OwnedClaim(store, policy, KEY, owner(policy), publisher, waits, new ReleaseRetries(), true);
        List<CompletableFuture<ClaimResult>> duplicates = List.of(waitFor(waits, policy), waitFor(waits, policy),
                waitFor(waits, policy));
        awaitWaiting(waits, 3);

        first.complete(StoredOutcome.of(201, Map.of(), "paid".getBytes()));

        for (CompletableFuture<ClaimResult> duplicate : duplicates) {
            ClaimResult result = duplicate.get(2, TimeUnit.SECONDS); // well before the 5 s maxWait
            assertThat(result).isInstanceOf(ClaimResult.Existing.class);
            ClaimResult.Existing existing = (ClaimResult.Existing) result;
            assertThat(existing.record().state()).isEqualTo(RecordState.COMPLETED);
            assertThat(existing.record().outcome().body()).isEqualTo("paid".getBytes());
        }
        assertThat(waits.waiting()).as("nobody left waiting").isZero();
        assertThat(waits.watchedKeys()).as("no watch left behind").isZero();
    }

    /**
     * The application stops (its store about to be destroyed): waiting duplicates end now, with
     * the 409 they would have had, without looking at the store again; a duplicate that comes
     * after does not wait. Before, they slept on up to maxWait, holding up the undeployment, and
     * then looked at a store that may be gone.
     */
    @Test
    void stoppingTheApplicationEndsTheWaitsWithoutLookingAgain() throws Exception {
        IdempotencyPolicy policy = policy("place");
        InProgressWaits waits = onlyWokenUp(8);
        owner(policy);
        List<CompletableFuture<ClaimResult>> duplicates = List.of(waitFor(waits, policy), waitFor(waits, policy));
        awaitWaiting(waits, 2);
        long looks = store.calls("find");

        waits.close();

        for (CompletableFuture<ClaimResult> duplicate : duplicates) {
            ClaimResult result = duplicate.get(2, TimeUnit.SECONDS); // well before the 5 s maxWait
            assertThat(((ClaimResult.Existing) result).record().state()).isEqualTo(RecordState.IN_PROGRESS);
        }
        ClaimResult.Existing late = found(policy);
        assertThat(waits.await(store, policy, KEY, PRINT, late)).as("a duplicate after the stop does not wait").isSameAs(late);
        assertThat(store.calls("find")).as("no look at the store after the stop").isEqualTo(looks);
        assertThat(waits.waiting()).as("nobody left waiting").isZero();
    }

    /**
     * A look that meets the application's classes gone (undeployed while it slept: a
     * {@code LinkageError}, not an exception) ends the wait with the 409 of a store failure; it
     * reached the caller as an {@code Error} (a 500) before.
     */
    @Test
    void aLookThatMeetsTheApplicationGoneEndsTheWaitAsAStoreFailure() throws Exception {
        IdempotencyPolicy policy = policy("placeBriefly");
        InProgressWaits waits = new InProgressWaits(8);
        owner(policy);
        ClaimResult.Existing found = found(policy);
        DelegatingStore gone = new DelegatingStore(store) {
            @Override
            public Optional<IdempotencyRecord> find(String key) {
                throw new NoClassDefFoundError("dev/idempotency/spi/IdempotencyRecord");
            }
        };

        ClaimResult result = CompletableFuture.supplyAsync(() -> waits.await(gone, policy, KEY, PRINT, found), threads)
                .get(2, TimeUnit.SECONDS);

        assertThat(result).isSameAs(found);
    }

    @Test
    void aDuplicateOfAnOwnerOnAnotherNodeLooksAgainAfterABackOff() throws Exception {
        IdempotencyPolicy policy = policy("place");
        InProgressWaits waits = new InProgressWaits(8);
        String owner = owner(policy);
        CompletableFuture<ClaimResult> duplicate = waitFor(waits, policy);
        awaitWaiting(waits, 1);
        Thread.sleep(600);
        long looks = store.calls("find");

        // completed straight in the store: no settled() on this node, as for another node's owner
        store.complete(KEY, owner, StoredOutcome.of(200, Map.of(), "done".getBytes()), policy.ttl());

        ClaimResult result = duplicate.get(3, TimeUnit.SECONDS);
        assertThat(((ClaimResult.Existing) result).record().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(looks).as("looks in the first 600 ms: backed off (10, 20, 40, ... 250 ms), not spinning")
                .isBetween(2L, 8L);
        assertThat(store.calls("claim")).as("looks read; they claim only a key that is gone").isEqualTo(2);
    }

    @Test
    void aKeyGivenBackWhileADuplicateWaitsIsClaimedByTheDuplicate() throws Exception {
        IdempotencyPolicy policy = policy("place");
        InProgressWaits waits = onlyWokenUp(8);
        OwnedClaim first = new OwnedClaim(store, policy, KEY, owner(policy), publisher, waits, new ReleaseRetries(), true);
        CompletableFuture<ClaimResult> duplicate = waitFor(waits, policy);
        awaitWaiting(waits, 1);

        first.release();

        ClaimResult result = duplicate.get(2, TimeUnit.SECONDS);
        assertThat(result).as("the duplicate now runs, as its retry would").isInstanceOf(ClaimResult.Acquired.class);
        assertThat(memory.find(KEY).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
    }

    @Test
    void aWaitPastItsMaximumEndsInProgress() throws Exception {
        IdempotencyPolicy policy = policy("placeBriefly");
        InProgressWaits waits = new InProgressWaits(8);
        owner(policy);
        long start = System.nanoTime();

        ClaimResult result = waitFor(waits, policy).get(3, TimeUnit.SECONDS);

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        assertThat(((ClaimResult.Existing) result).record().state()).isEqualTo(RecordState.IN_PROGRESS);
    }

    @Test
    void moreDuplicatesThanTheBoundAreAnsweredAtOnce() throws Exception {
        IdempotencyPolicy policy = policy("place");
        InProgressWaits waits = new InProgressWaits(2);
        OwnedClaim first = new OwnedClaim(store, policy, KEY, owner(policy), publisher, waits, new ReleaseRetries(), true);
        List<CompletableFuture<ClaimResult>> waiting = List.of(waitFor(waits, policy), waitFor(waits, policy));
        awaitWaiting(waits, 2);
        ClaimResult.Existing found = found(policy);
        long looks = store.calls("find");

        ClaimResult third = waits.await(store, policy, KEY, PRINT, found);

        assertThat(third).as("no place: what it found, unchanged").isSameAs(found);
        assertThat(store.calls("find")).as("without a look at the store").isEqualTo(looks);
        first.complete(StoredOutcome.of(200, Map.of(), new byte[0]));
        for (CompletableFuture<ClaimResult> duplicate : waiting) {
            assertThat(((ClaimResult.Existing) duplicate.get(2, TimeUnit.SECONDS)).record().state())
                    .isEqualTo(RecordState.COMPLETED);
        }
        assertThat(waits.await(store, policy, KEY, PRINT, found))
                .as("the places are free again: the look finds the completion").isNotSameAs(found);
    }

    @Test
    void aStoreFailingWhileADuplicateWaitsEndsTheWaitInProgress() throws Exception {
        IdempotencyPolicy policy = policy("place");
        InProgressWaits waits = new InProgressWaits(8);
        owner(policy);
        ClaimResult.Existing found = found(policy);
        store.down(true);

        ClaimResult result = waits.await(store, policy, KEY, PRINT, found);

        assertThat(result).as("the 409 it would have had; the caller reports it as CONFLICT").isSameAs(found);
    }

    @Test
    void aDuplicateNeverTakesOverAClaimWhoseLeaseRanOut() throws Exception {
        IdempotencyPolicy policy = policy("placeOnAShortLease");
        InProgressWaits waits = new InProgressWaits(8);
        String owner = owner(policy);
        Thread.sleep(150);

        ClaimResult result = waitFor(waits, policy).get(3, TimeUnit.SECONDS);

        assertThat(((ClaimResult.Existing) result).record().state())
                .as("the 0.2 s lease ran out while it waited, from 0.15 s to 0.35 s")
                .isEqualTo(RecordState.IN_PROGRESS);
        assertThat(store.complete(KEY, owner, StoredOutcome.of(200, Map.of(), new byte[0]), policy.ttl()))
                .as("the slow owner kept its claim").isTrue();
    }

    @Test
    void anEndOfTheClaimBetweenALookAndTheNextSleepIsNotMissed() throws Exception {
        IdempotencyPolicy policy = policy("place");
        InProgressWaits waits = onlyWokenUp(8);
        OwnedClaim first = new OwnedClaim(store, policy, KEY, owner(policy), publisher, waits, new ReleaseRetries(), true);
        ClaimResult.Existing found = found(policy);
        // The first look (after a wake-up) reads the claim in progress; right after it, before the
        // duplicate sleeps again, the owner completes.
        CountDownLatch looked = new CountDownLatch(1);
        IdempotencyStore racing = new DelegatingStore(memory) {
            @Override
            public Optional<IdempotencyRecord> find(String key) {
                Optional<IdempotencyRecord> record = memory.find(key);
                if (looked.getCount() == 1) {
                    looked.countDown();
                    first.complete(StoredOutcome.of(201, Map.of(), "paid".getBytes()));
                }
                return record;
            }
        };
        CompletableFuture<ClaimResult> duplicate = CompletableFuture.supplyAsync(
                () -> waits.await(racing, policy, KEY, PRINT, found), threads);
        awaitWaiting(waits, 1);
        waits.settled(KEY); // the wake-up that leads to the first look

        ClaimResult result = duplicate.get(3, TimeUnit.SECONDS);

        assertThat(((ClaimResult.Existing) result).record().state()).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    void anInterruptedWaitEndsAtOnceAndKeepsTheInterrupt() throws Exception {
        IdempotencyPolicy policy = policy("place");
        InProgressWaits waits = new InProgressWaits(8);
        owner(policy);
        ClaimResult.Existing found = found(policy);
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            started.countDown();
            ClaimResult result = waits.await(store, policy, KEY, PRINT, found);
            interrupted.complete(result == found && Thread.currentThread().isInterrupted());
        });
        waiter.start();
        started.await();
        awaitWaiting(waits, 1);

        waiter.interrupt();

        assertThat(interrupted.get(2, TimeUnit.SECONDS)).isTrue();
        assertThat(waits.waiting()).isZero();
    }
}
