package dev.idempotency.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.idempotency.cdi.FakeJta;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.spi.contract.IdempotencyStoreContractTest;
import dev.idempotency.spi.support.TransactionGuard;

/**
 * The tiered store keeps the store contract (over two in-memory layers), and its own promises:
 * the front answers duplicates and replays alone, the back decides, a failing front costs no
 * error and no second execution.
 */
class TieredIdempotencyStoreTest extends IdempotencyStoreContractTest {

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final Layer front = new Layer(new InMemoryIdempotencyStore(1_000_000, clock::get));
    private final Layer back = new Layer(new InMemoryIdempotencyStore(1_000_000, clock::get));

    /** A layer that counts its calls and can be switched down, like an unreachable server. */
    static final class Layer implements IdempotencyStore {
        private final IdempotencyStore delegate;
        final AtomicInteger calls = new AtomicInteger();
        volatile boolean down;
        /** Run before each release (a slow one, in a test). */
        volatile Runnable beforeRelease = () -> { };
        /** What happens after a completion fixed the record's end (a commit that stalls). */
        volatile Runnable afterComplete = () -> { };

        Layer(IdempotencyStore delegate) {
            this.delegate = delegate;
        }

        private void call() {
            calls.incrementAndGet();
            if (down) {
                throw new IdempotencyStoreException("layer down");
            }
        }

        @Override
        public ClaimResult claim(String key, String fingerprint, Duration lease, Duration retention) {
            call();
            return delegate.claim(key, fingerprint, lease, retention);
        }

        @Override
        public boolean complete(String key, String owner, StoredOutcome outcome, Duration retention) {
            call();
            boolean completed = delegate.complete(key, owner, outcome, retention);
            afterComplete.run();
            return completed;
        }

        @Override
        public boolean markExecuted(String key, String owner, Duration lease, Duration retention) {
            call();
            return delegate.markExecuted(key, owner, lease, retention);
        }

        @Override
        public boolean release(String key, String owner) {
            call();
            beforeRelease.run();
            return delegate.release(key, owner);
        }

        @Override
        public Optional<IdempotencyRecord> find(String key) {
            call();
            return delegate.find(key);
        }
    }

    @Override
    protected IdempotencyStore createStore() {
        return new TieredIdempotencyStore(front, back, Duration.ofSeconds(5), clock::get, new TransactionGuard());
    }

    @Override
    protected void elapse(Duration duration) {
        clock.addAndGet(duration.toNanos() + 1);
    }

    private TieredIdempotencyStore tiered() {
        return (TieredIdempotencyStore) store();
    }

    @Test
    void aCopyMadeWhenALongTransactionCommitsEndsWithTheBacksRecord() throws Exception {
        // The back's record is kept for the retention from its completion, inside the business
        // transaction; the front's copy was kept for the retention from the commit, and replayed
        // the answer for as long as the transaction had run on, after the back had let the key go.
        FakeJta.install();
        try {
            TieredIdempotencyStore tiered = new TieredIdempotencyStore(front, back, Duration.ofSeconds(5), clock::get,
                    new TransactionGuard());
            String key = freshKey();
            Duration retention = Duration.ofMinutes(10);
            String owner = ((ClaimResult.Acquired) tiered.claim(key, "fp", LONG, retention)).owner();
            FakeJta.INSTANCE.begin();
            assertThat(tiered.complete(key, owner, sampleOutcome(), retention)).isTrue();
            elapse(Duration.ofMinutes(4)); // the transaction runs on after the method returned
            assertThat(FakeJta.INSTANCE.commit()).isTrue();

            elapse(Duration.ofMinutes(6)); // ten minutes after the completion
            assertThat(back.find(key)).as("the back let the key go").isEmpty();
            assertThat(tiered.find(key)).as("nothing replayed for a record the back no longer keeps").isEmpty();
            assertThat(tiered.claim(key, "fp", LONG, retention)).as("a retry runs again")
                    .isInstanceOf(ClaimResult.Acquired.class);
        } finally {
            FakeJta.INSTANCE.forget();
            FakeJta.uninstall();
        }
    }

    @Test
    void aCopyMadeAfterTheBackStalledOutsideATransactionEndsWithTheBacksRecord() {
        // The back fixed its record's end, then stalled (a slow commit of its own); the front's copy,
        // made after it, was kept for the whole retention from then, and replayed the answer for as
        // long as the back had stalled, after the back had let the key go.
        String key = freshKey();
        Duration retention = Duration.ofMinutes(10);
        String owner = ((ClaimResult.Acquired) tiered().claim(key, "fp", LONG, retention)).owner();
        back.afterComplete = () -> elapse(Duration.ofSeconds(30));
        try {
            assertThat(tiered().complete(key, owner, sampleOutcome(), retention)).isTrue();
        } finally {
            back.afterComplete = () -> { };
        }

        elapse(retention.minusSeconds(30)); // the retention, from the back's completion
        assertThat(back.find(key)).as("the back let the key go").isEmpty();
        assertThat(tiered().find(key)).as("nothing replayed for a record the back no longer keeps").isEmpty();
        assertThat(tiered().claim(key, "fp", LONG, retention)).as("a retry runs again")
                .isInstanceOf(ClaimResult.Acquired.class);
    }

    @Test
    void duplicatesAndReplaysAreAnsweredByTheFrontAlone() {
        String key = freshKey();
        String owner = acquire(key, "fp");
        int backCalls = back.calls.get();

        assertThat(tiered().claim(key, "fp", LONG)).isInstanceOf(ClaimResult.Existing.class);
        assertThat(back.calls.get()).as("a duplicate in progress never reaches the database").isEqualTo(backCalls);

        assertThat(tiered().complete(key, owner, sampleOutcome(), LONG)).isTrue();
        backCalls = back.calls.get();
        ClaimResult replay = tiered().claim(key, "fp", LONG);
        assertThat(((ClaimResult.Existing) replay).record().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(tiered().find(key)).get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.COMPLETED);
        assertThat(back.calls.get()).as("replays never reach the database").isEqualTo(backCalls);
    }

    @Test
    void whenTheFrontForgotTheBackAnswersAndTheFrontKeepsACopy() {
        String key = freshKey();
        String owner = ((ClaimResult.Acquired) back.claim(key, "fp", LONG)).owner();
        back.complete(key, owner, sampleOutcome(), LONG); // completed while the front was away (or restarted empty)

        ClaimResult answer = tiered().claim(key, "fp", LONG);

        assertThat(((ClaimResult.Existing) answer).record().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(front.find(key)).as("copied to the front for the next retries").get()
                .extracting(IdempotencyRecord::state).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    void anotherRequestWithTheKeyNeverGetsACopyOfTheFirstOnesOutcome() {
        String key = freshKey();
        String owner = ((ClaimResult.Acquired) back.claim(key, "fp-first", LONG)).owner();
        back.complete(key, owner, sampleOutcome(), LONG); // the front forgot it (restarted empty)

        ClaimResult other = tiered().claim(key, "fp-other", LONG);

        assertThat(((ClaimResult.Existing) other).record().fingerprint()).isEqualTo("fp-first");
        assertThat(front.find(key)).as("no copy under the other request's fingerprint").isEmpty();
        ClaimResult retryOfOther = tiered().claim(key, "fp-other", LONG);
        assertThat(((ClaimResult.Existing) retryOfOther).record().fingerprint())
                .as("its retry is still told the key is another request's").isEqualTo("fp-first");
        ClaimResult retryOfFirst = tiered().claim(key, "fp-first", LONG);
        assertThat(((ClaimResult.Existing) retryOfFirst).record().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(front.find(key)).as("the first request's retry makes the copy").get()
                .extracting(IdempotencyRecord::fingerprint).isEqualTo("fp-first");
    }

    @Test
    void aRetryOfACompletedRequestIsReplayedFromTheBackWhileTheFrontHoldsAnotherRequestsClaim() {
        String key = freshKey();
        String owner = ((ClaimResult.Acquired) back.claim(key, "fp-first", LONG, LONG)).owner();
        back.complete(key, owner, sampleOutcome(), LONG); // completed while the front was away
        front.claim(key, "fp-other", LONG, LONG); // another request with the key, in flight in front

        ClaimResult retry = tiered().claim(key, "fp-first", LONG, LONG);

        assertThat(retry).isInstanceOf(ClaimResult.Existing.class);
        IdempotencyRecord record = ((ClaimResult.Existing) retry).record();
        assertThat(record.state()).as("the back's answer, not the front's 422").isEqualTo(RecordState.COMPLETED);
        assertThat(record.outcome()).isEqualTo(sampleOutcome());
    }

    @Test
    void anOutcomeTheFrontCountsAsLostIsAskedOfTheBack() throws Exception {
        String key = freshKey();
        String frontOwner = ((ClaimResult.Acquired) front.claim(key, "fp", LONG, LONG)).owner();
        front.markExecuted(key, frontOwner, shortDuration(), LONG); // its copy of the completion never came
        String owner = ((ClaimResult.Acquired) back.claim(key, "fp", LONG, LONG)).owner();
        back.complete(key, owner, sampleOutcome(), LONG);
        elapse(shortDuration());
        assertThat(((ClaimResult.Existing) front.claim(key, "fp", LONG, LONG)).record().state())
                .isEqualTo(RecordState.OUTCOME_LOST);

        ClaimResult retry = tiered().claim(key, "fp", LONG, LONG);

        assertThat(((ClaimResult.Existing) retry).record().state()).as("the back holds the outcome")
                .isEqualTo(RecordState.COMPLETED);
        assertThat(((ClaimResult.Existing) retry).record().outcome()).isEqualTo(sampleOutcome());
    }

    @Test
    void anotherRequestWhoseKeyIsFreeInTheBackIsDecidedThereNotRefusedByTheFront() {
        String key = freshKey();
        front.claim(key, "fp-stale", LONG, LONG); // a front claim whose back claim never came (a failed request)

        ClaimResult claim = tiered().claim(key, "fp-new", LONG, LONG);

        assertThat(claim).as("the back decides: the key is free there").isInstanceOf(ClaimResult.Acquired.class);
        assertThat(back.find(key)).get().extracting(IdempotencyRecord::fingerprint).isEqualTo("fp-new");
    }

    @Test
    void aFrontThatFailsCostsNoErrorAndTheBackStillDecides() {
        front.down = true;
        String key = freshKey();

        ClaimResult first = tiered().claim(key, "fp", LONG);
        ClaimResult duplicate = tiered().claim(key, "fp", LONG);

        assertThat(first).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(duplicate).as("the back refuses the duplicate").isInstanceOf(ClaimResult.Existing.class);
        assertThat(tiered().frontInUse()).isFalse();
        int frontCalls = front.calls.get();
        String owner = ((ClaimResult.Acquired) first).owner();
        assertThat(tiered().markExecuted(key, owner, LONG, LONG)).isTrue();
        assertThat(tiered().complete(key, owner, sampleOutcome(), LONG)).isTrue();
        assertThat(front.calls.get()).as("left alone during its pause").isEqualTo(frontCalls);

        front.down = false;
        elapse(Duration.ofSeconds(5));
        assertThat(tiered().frontInUse()).isTrue();
        ClaimResult replay = tiered().claim(key, "fp", LONG);
        assertThat(((ClaimResult.Existing) replay).record().state()).isEqualTo(RecordState.COMPLETED);
    }

    /** Pauses the front, as any failure of it does (here: a read of another key while it was down). */
    private void pauseTheFront() {
        front.down = true;
        tiered().find(freshKey());
        front.down = false;
        assertThat(tiered().frontInUse()).isFalse();
    }

    @Test
    void aReleaseTheFrontMissedDuringAPauseIsMadeUpSoTheKeyIsFreeAtOnceAfterIt() {
        String key = freshKey();
        String owner = acquire(key, "fp");
        pauseTheFront();

        assertThat(tiered().release(key, owner)).isTrue();
        elapse(Duration.ofSeconds(5)); // the pause is over; the lease (10 minutes) is not

        assertThat(tiered().claim(key, "fp", LONG)).as("the retry runs: the key is free in the back")
                .isInstanceOf(ClaimResult.Acquired.class);
    }

    /**
     * Two owners of one key whose front updates a pause skipped: a retry that took the key over
     * completed, then the slow first owner's late completion was refused. Both front claims are
     * made up after the pause, not only the one skipped last (the retry's copy was lost to the
     * first owner's, so the front answered {@code 409} for the retry's lease while the back held
     * the answer).
     */
    @Test
    void everyOwnerWhoseFrontUpdateAPauseSkippedIsMadeUpNotOnlyTheLast() throws InterruptedException {
        String key = freshKey();
        String slow = acquire(key, "fp", shortDuration(), LONG);
        elapse(shortDuration());
        String retry = ((ClaimResult.Acquired) tiered().claim(key, "fp", LONG, LONG)).owner();
        pauseTheFront();

        assertThat(tiered().complete(key, retry, sampleOutcome(), LONG)).isTrue();
        assertThat(tiered().complete(key, slow, sampleOutcome(), LONG)).as("taken over").isFalse();
        elapse(Duration.ofSeconds(5));

        ClaimResult again = tiered().claim(key, "fp", LONG);
        assertThat(((ClaimResult.Existing) again).record().state()).as("replayed, not 409 until the retry's lease ends")
                .isEqualTo(RecordState.COMPLETED);
    }

    /**
     * A release skipped during one node's pause: a retry on another node, whose front is in use,
     * must not be told {@code 409} by the front claim the back has ended. The node gives back what
     * its pause skipped as soon as its front is in use again, not only at each key's next claim on
     * that node.
     */
    @Test
    void aReleaseSkippedDuringOneNodesPauseIsMadeUpWhenItEndsForRetriesOnOtherNodes() {
        TieredIdempotencyStore otherNode = new TieredIdempotencyStore(front, back, Duration.ofSeconds(5), clock::get,
                new TransactionGuard());
        String key = freshKey();
        String owner = acquire(key, "fp");
        pauseTheFront();

        assertThat(tiered().release(key, owner)).isTrue();
        elapse(Duration.ofSeconds(5)); // the pause is over; the lease (10 minutes) is not
        tiered().find(freshKey()); // any call of this node's after its pause

        assertThat(otherNode.claim(key, "fp", LONG)).as("the retry on the other node runs: the key is free in the back")
                .isInstanceOf(ClaimResult.Acquired.class);
    }

    /**
     * After a pause, another call of the node is giving back the key's skipped front claim (its
     * release slow) when the key's retry comes: the retry must not find the skipped claim gone from
     * the node's memory but still in front (a {@code 409} from the front alone).
     */
    @Test
    void aRetryWhileAnotherCallGivesBackItsKeysSkippedClaimRunsInsteadOfBeingTold409() throws Exception {
        String key = freshKey();
        String owner = acquire(key, "fp");
        pauseTheFront();
        assertThat(tiered().release(key, owner)).isTrue();
        elapse(Duration.ofSeconds(5));
        java.util.concurrent.CountDownLatch releasing = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch retried = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean first = new java.util.concurrent.atomic.AtomicBoolean(true);
        front.beforeRelease = () -> {
            if (first.getAndSet(false)) {
                releasing.countDown();
                try {
                    retried.await(5, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        Thread other = new Thread(() -> tiered().find(freshKey())); // any call of the node after its pause
        other.start();
        assertThat(releasing.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

        ClaimResult retry = tiered().claim(key, "fp", LONG);
        retried.countDown();
        other.join(5_000);

        assertThat(retry).as("the key is free in the back: the retry runs").isInstanceOf(ClaimResult.Acquired.class);
    }

    @Test
    void aCopyTheFrontMissedDuringAPauseIsMadeUpSoTheRetryIsReplayedAtOnceAfterIt() {
        String key = freshKey();
        String owner = acquire(key, "fp");
        pauseTheFront();

        assertThat(tiered().complete(key, owner, sampleOutcome(), LONG)).isTrue();
        elapse(Duration.ofSeconds(5));

        ClaimResult retry = tiered().claim(key, "fp", LONG);
        assertThat(((ClaimResult.Existing) retry).record().state()).as("replayed, not 409 until the lease ends")
                .isEqualTo(RecordState.COMPLETED);
        assertThat(tiered().claim(key, "fp", LONG)).as("and copied to the front again")
                .satisfies(again -> assertThat(front.find(key)).get().extracting(IdempotencyRecord::state)
                        .isEqualTo(RecordState.COMPLETED));
    }

    @Test
    void aReleaseTheBackFailsStillGivesTheFrontClaimBack() {
        String key = freshKey();
        String owner = acquire(key, "fp");
        back.down = true;

        assertThatThrownBy(() -> tiered().release(key, owner)).isInstanceOf(IdempotencyStoreException.class);

        back.down = false;
        assertThat(front.find(key)).as("the front holds no claim the back may have given up").isEmpty();
    }

    @Test
    void aBackThatFailsFailsTheClaimAndGivesTheFrontClaimBack() {
        back.down = true;
        String key = freshKey();

        assertThatThrownBy(() -> tiered().claim(key, "fp", LONG)).isInstanceOf(IdempotencyStoreException.class);

        back.down = false;
        assertThat(front.find(key)).as("no claim left behind in the front").isEmpty();
        assertThat(tiered().claim(key, "fp", LONG)).isInstanceOf(ClaimResult.Acquired.class);
    }

    @Test
    void ownerTokensOfBothLayersSurviveTheirJoining() {
        String joined = TieredIdempotencyStore.Owners.join("12:ab", "x:y");
        assertThat(TieredIdempotencyStore.Owners.back(joined)).isEqualTo("12:ab");
        assertThat(TieredIdempotencyStore.Owners.front(joined)).isEqualTo("x:y");
        String backOnly = TieredIdempotencyStore.Owners.join("uuid", null);
        assertThat(TieredIdempotencyStore.Owners.back(backOnly)).isEqualTo("uuid");
        assertThat(TieredIdempotencyStore.Owners.front(backOnly)).isNull();
        for (String foreign : new String[] {"not-an-owner", "-1:x", "99:short", ":", "9999999999:x"}) {
            assertThat(TieredIdempotencyStore.Owners.back(foreign)).as(foreign).isEqualTo(foreign);
            assertThat(TieredIdempotencyStore.Owners.front(foreign)).as(foreign).isNull();
        }
    }
}
