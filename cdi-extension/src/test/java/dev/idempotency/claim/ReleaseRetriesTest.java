package dev.idempotency.claim;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.config.Policies;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.store.InMemoryIdempotencyStore;
import dev.idempotency.store.RecordingStore;

/**
 * Failed releases given back in the background: until the store answers (released, or no longer
 * the owner's), never for a store that joins the caller's transaction, at most as many at once as
 * the bound, and no more once the application stops or the record's retention ran out.
 */
class ReleaseRetriesTest {

    static class Orders {
        @Idempotent(lease = "PT10S")
        public void place() {
        }

        @Idempotent(lease = "PT0.3S", ttl = "PT0.3S")
        public void placeBriefly() {
        }
    }

    private final InMemoryIdempotencyStore memory = new InMemoryIdempotencyStore(100_000, System::nanoTime);
    private final RecordingStore store = new RecordingStore(memory);
    private final ReleaseRetries retries = new ReleaseRetries();
    private final AtomicInteger released = new AtomicInteger();

    @AfterEach
    void stop() {
        retries.close();
    }

    private static IdempotencyPolicy policy(String method) {
        return Policies.unconfigured(Orders.class, method);
    }

    private String claim(String key, IdempotencyPolicy policy) {
        return ((ClaimResult.Acquired) memory.claim(key, "fp", policy.lease(), policy.ttl())).owner();
    }

    /** @return what a claim of the key made again on this node answers */
    private ClaimResult claimAgain(String key, IdempotencyPolicy policy) {
        return retries.claimedAgain(store, policy, key, "fp", memory.claim(key, "fp", policy.lease(), policy.ttl()));
    }

    /**
     * A release of an owner whose key another then claimed, failed and retried, with the store back.
     *
     * @return the other owner
     */
    private String releaseOfAStaleOwnerPending(String key, IdempotencyPolicy policy) {
        String owner = claim(key, policy);
        memory.release(key, owner);
        String other = claim(key, policy);
        store.down(true);
        retries.retry(store, policy, key, owner, released::incrementAndGet);
        store.down(false);
        return other;
    }

    private static boolean within(Duration limit, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(5);
        }
        return true;
    }

    @Test
    void aReleaseIsTriedAgainWithGrowingPausesUntilTheStoreAnswers() throws InterruptedException {
        IdempotencyPolicy policy = policy("place");
        String owner = claim("k-1", policy);
        memory.markExecuted("k-1", owner, policy.lease(), policy.ttl());
        store.down(true);
        long started = System.nanoTime();

        assertThat(retries.retry(store, policy, "k-1", owner, released::incrementAndGet)).isTrue();
        assertThat(within(Duration.ofSeconds(2), () -> store.calls("release") >= 3)).isTrue();
        // 100 ms, then 200 ms more: the third attempt comes 300 ms or more after the failure
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        assertThat(memory.find("k-1").orElseThrow().state()).isEqualTo(RecordState.EXECUTED);
        assertThat(retries.pending()).isEqualTo(1);
        store.down(false);

        assertThat(within(Duration.ofSeconds(3), () -> released.get() == 1)).as("released once the store answered").isTrue();
        assertThat(memory.find("k-1")).isEmpty();
        assertThat(retries.pending()).isZero();
    }

    @Test
    void aClaimThatIsNoLongerTheOwnersIsLeftAsItIs() throws InterruptedException {
        IdempotencyPolicy policy = policy("place");
        String other = releaseOfAStaleOwnerPending("k-1", policy);

        assertThat(within(Duration.ofSeconds(2), () -> retries.pending() == 0)).isTrue();
        assertThat(released).as("not released by this owner").hasValue(0);
        assertThat(memory.complete("k-1", other, StoredOutcome.of(201, Map.of(), new byte[0]), policy.ttl()))
                .as("the other owner's claim is untouched").isTrue();
    }

    @Test
    void aKeyClaimedAgainWhileItsReleaseIsPendingIsGivenBackAtOnceAndClaimedForTheRetry() throws InterruptedException {
        IdempotencyPolicy policy = policy("place");
        String owner = claim("k-1", policy);
        memory.markExecuted("k-1", owner, policy.lease(), policy.ttl());
        store.down(true);
        retries.retry(store, policy, "k-1", owner, released::incrementAndGet);

        ClaimResult whileDown = claimAgain("k-1", policy);
        assertThat(whileDown).as("the store still down: the record answers").isInstanceOf(ClaimResult.Existing.class);
        assertThat(retries.pending()).as("still pending").isEqualTo(1);
        store.down(false);
        ClaimResult back = claimAgain("k-1", policy);

        assertThat(back).as("released at once, and claimed for the retry").isInstanceOf(ClaimResult.Acquired.class);
        assertThat(within(Duration.ofSeconds(2), () -> released.get() == 1)).as("reported on the library's thread").isTrue();
        assertThat(released).hasValue(1);
        assertThat(retries.pending()).isZero();
    }

    @Test
    void aKeyClaimedAgainThatIsNoLongerThePendingOwnersStaysAsTheStoreAnswered() throws InterruptedException {
        IdempotencyPolicy policy = policy("place");
        releaseOfAStaleOwnerPending("k-1", policy);

        ClaimResult again = claimAgain("k-1", policy);

        assertThat(again).as("the other owner's claim answers").isInstanceOf(ClaimResult.Existing.class);
        assertThat(released).hasValue(0);
        assertThat(retries.pending()).as("ended: no longer this owner's").isZero();
        assertThat(within(Duration.ofMillis(300), () -> store.calls("release") > 1)).as("no background try after it").isFalse();
    }

    @Test
    void aStoreThatJoinsTheCallersTransactionIsNotRetried() {
        IdempotencyPolicy policy = policy("place");
        store.joinsCallerTransaction(true);

        assertThat(retries.retry(store, policy, "k-1", claim("k-1", policy), released::incrementAndGet)).isFalse();
        assertThat(retries.pending()).isZero();
    }

    @Test
    void noMoreThanTheBoundArePendingAtOnce() {
        IdempotencyPolicy policy = policy("place");
        store.down(true);
        for (int i = 0; i < ReleaseRetries.MAX_PENDING; i++) {
            assertThat(retries.retry(store, policy, "k-" + i, "owner", released::incrementAndGet)).isTrue();
        }

        assertThat(retries.retry(store, policy, "k-over", "owner", released::incrementAndGet)).isFalse();
        assertThat(retries.pending()).isEqualTo(ReleaseRetries.MAX_PENDING);
    }

    @Test
    void retriesEndWhenTheRecordsRetentionRanOut() throws InterruptedException {
        IdempotencyPolicy policy = policy("placeBriefly");
        store.down(true);

        retries.retry(store, policy, "k-1", claim("k-1", policy), released::incrementAndGet);

        assertThat(within(Duration.ofSeconds(3), () -> retries.pending() == 0)).as("given up after 0.3 s").isTrue();
        long attempts = store.calls("release");
        assertThat(attempts).isBetween(2L, 4L);
        assertThat(within(Duration.ofMillis(500), () -> store.calls("release") > attempts)).as("no more attempts").isFalse();
    }

    @Test
    void nothingIsRetriedOnceTheApplicationStops() throws InterruptedException {
        IdempotencyPolicy policy = policy("place");
        store.down(true);
        retries.retry(store, policy, "k-1", claim("k-1", policy), released::incrementAndGet);

        retries.close();
        long attempts = store.calls("release");

        assertThat(retries.retry(store, policy, "k-2", "owner", released::incrementAndGet)).isFalse();
        assertThat(within(Duration.ofMillis(500), () -> store.calls("release") > attempts)).isFalse();
    }
}
