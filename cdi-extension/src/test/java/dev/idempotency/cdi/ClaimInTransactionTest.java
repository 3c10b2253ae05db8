package dev.idempotency.cdi;

import static dev.idempotency.IdempotencyOutcome.COMPLETED;
import static dev.idempotency.IdempotencyOutcome.RELEASED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyEvent;
import dev.idempotency.IdempotencyOutcome;
import dev.idempotency.Idempotent;
import dev.idempotency.claim.EventPublisher;
import dev.idempotency.claim.HttpClaim;
import dev.idempotency.claim.InProgressWaits;
import dev.idempotency.claim.OwnedClaim;
import dev.idempotency.claim.ReleaseRetries;
import dev.idempotency.claim.RetryOutcomes;
import dev.idempotency.claim.TransactionBinding;
import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.config.Policies;
import dev.idempotency.exceptions.IdempotencyConflictException;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.spi.support.TransactionGuard;
import dev.idempotency.store.InMemoryIdempotencyStore;
import dev.idempotency.store.RecordingStore;

/**
 * The claim's life bound to a JTA transaction, without a container: {@link TransactionBinding}
 * over the fake JTA, the real in-memory store on a clock the test drives. The work counts only
 * once its transaction committed, and an owner whose key was taken over never commits.
 */
class ClaimInTransactionTest {

    static class Orders {
        @Idempotent(lease = "PT10S")
        public void place() {
        }
    }

    /** A checked exception that the transaction commits despite ({@code dontRollbackOn}). */
    static class Declined extends Exception {
        private static final long serialVersionUID = 1L;

        Declined() {
            super("card declined");
        }
    }

    private static final String KEY = "k-1";
    private static final String FINGERPRINT = "fp-1";
    private static final StoredOutcome PLACED = StoredOutcome.of(201, Map.of(), "placed".getBytes());

    private final FakeJta jta = FakeJta.INSTANCE;
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final InMemoryIdempotencyStore memory = new InMemoryIdempotencyStore(1_000, clock::get);
    private final RecordingStore store = new RecordingStore(memory);
    private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
    private final IdempotencyPolicy policy;
    private final ReleaseRetries retries = new ReleaseRetries();
    private TransactionBinding binding;

    ClaimInTransactionTest() {
        policy = Policies.unconfigured(Orders.class, "place");
    }

    @BeforeEach
    void install() {
        FakeJta.install();
        binding = new TransactionBinding(new TransactionGuard());
    }

    @AfterEach
    void uninstall() {
        jta.forget();
        FakeJta.uninstall();
        retries.close();
    }

    private OwnedClaim claim() {
        ClaimResult result = store.claim(KEY, FINGERPRINT, policy.lease(), policy.ttl());
        assertThat(result).isInstanceOf(ClaimResult.Acquired.class);
        return new OwnedClaim(store, policy, KEY, ((ClaimResult.Acquired) result).owner(),
                new EventPublisher(List.of(events::add)), new InProgressWaits(1), retries, false);
    }

    /** @return the claim an HTTP request of the method acquired ({@code async}: an asynchronous endpoint's) */
    private HttpClaim httpClaim(boolean async) throws NoSuchMethodException {
        ClaimResult.Acquired acquired = (ClaimResult.Acquired) store.claim(KEY, FINGERPRINT, policy.lease(), policy.ttl());
        return new HttpClaim(store, policy, Orders.class, Orders.class.getMethod("place"), async, KEY, acquired.owner(),
                new EventPublisher(List.of(events::add)), new InProgressWaits(1), retries);
    }

    /** @return what a retry of the same call meets */
    private ClaimResult retry() {
        return store.claim(KEY, FINGERPRINT, policy.lease(), policy.ttl());
    }

    private List<IdempotencyOutcome> outcomes() {
        return events.stream().map(IdempotencyEvent::outcome).toList();
    }

    private void elapse(Duration duration) {
        clock.addAndGet(duration.toNanos() + 1);
    }

    @Test
    void aRollbackReleasesTheKeyEvenAfterTheWorkWasMarkedExecuted() {
        OwnedClaim claim = claim();
        AtomicInteger committed = new AtomicInteger();
        jta.begin();

        assertThat(binding.bind(claim, true, committed::incrementAndGet)).isTrue();
        assertThat(memory.find(KEY).orElseThrow().state()).isEqualTo(RecordState.EXECUTED);
        jta.rollback();

        assertThat(committed).as("onCommit").hasValue(0);
        assertThat(claim.isOpen()).isFalse();
        assertThat(store.calls("release")).isEqualTo(1);
        assertThat(memory.find(KEY)).as("nothing happened: the key is free").isEmpty();
        assertThat(outcomes()).containsExactly(RELEASED);
        assertThat(retry()).isInstanceOf(ClaimResult.Acquired.class);
    }

    /**
     * The fault campaign's {@code 410} without a payment (stop 33, Redis killed with
     * {@code appendfsync always}): the mark reached the store, its answer did not, so the work
     * rolled back (asked again, the store was down); the release after the rollback met the store
     * still down. The key must not stay marked executed (a {@code 410 response-lost} for every
     * retry until the ttl, for work that never committed): the release is tried again until the
     * store answers.
     */
    @Test
    void aMarkWhoseAnswerWasLostIsReleasedOnceTheStoreAnswersAgainAfterTheRollback() throws InterruptedException {
        OwnedClaim claim = claim();
        jta.begin();
        store.loseAnswerOfNextAndGoDown("markExecuted");

        assertThatThrownBy(() -> binding.bind(claim, true, null)).isInstanceOf(IdempotencyStoreException.class);
        assertThat(store.calls("markExecuted")).as("asked again, the store down").isEqualTo(2);
        assertThat(memory.find(KEY).orElseThrow().state()).as("the mark reached the store").isEqualTo(RecordState.EXECUTED);
        jta.rollback();
        assertThat(store.calls("release")).as("tried at the rollback").isPositive();
        assertThat(memory.find(KEY).orElseThrow().state()).isEqualTo(RecordState.EXECUTED);
        store.down(false);

        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!outcomes().contains(RELEASED) && System.nanoTime() < deadline) { // reported once released
            Thread.sleep(5);
        }
        assertThat(memory.find(KEY)).as("the key is free once the store answers: nothing committed").isEmpty();
        assertThat(outcomes()).as("reported once it was").containsExactly(RELEASED);
        assertThat(retry()).isInstanceOf(ClaimResult.Acquired.class);
    }

    /**
     * The fault campaign's {@code 410} without a payment (stop 34, an application node frozen past
     * its lease on the Infinispan store): the mark reached the store, its answer was lost to the
     * node's own stall (the client's timeout fired as it woke). The work rolled back and released
     * its key; but a retry on another node, after the mark's lease, had already been told the
     * response was lost, for a payment never made. Asked again, the store says the mark is this
     * owner's: the work commits, and what the retry was told is true.
     */
    @Test
    void aMarkWhoseAnswerWasLostIsAskedAgainAndTheWorkCommitsAsARetryWasToldMeanwhile() {
        OwnedClaim claim = claim();
        jta.begin();
        store.loseAnswerOfNext("markExecuted");

        assertThat(binding.bind(claim, true, () -> claim.complete(PLACED))).isTrue();
        elapse(policy.lease()); // the node stalled before its commit
        assertThat(RetryOutcomes.of(((ClaimResult.Existing) retry()).record(), FINGERPRINT))
                .as("a retry meanwhile").isEqualTo(IdempotencyOutcome.OUTCOME_LOST);
        assertThat(jta.commit()).as("the work commits").isTrue();

        assertThat(store.calls("markExecuted")).as("asked again").isEqualTo(2);
        assertThat(memory.find(KEY).orElseThrow().outcome()).as("then completed, replayed to retries").isEqualTo(PLACED);
        assertThat(store.calls("release")).isZero();
        assertThat(outcomes()).containsExactly(COMPLETED);
    }

    /**
     * A commit whose outcome the transaction manager cannot tell ({@code STATUS_UNKNOWN}) may have
     * committed the work: the key must never run again, so the executed mark stays (retries get
     * {@code 409}, then {@code 410}), nothing is released and no outcome is stored as committed.
     */
    @Test
    void aTransactionWhoseOutcomeIsUnknownKeepsTheExecutedMarkAndStoresNothing() {
        OwnedClaim claim = claim();
        AtomicInteger committed = new AtomicInteger();
        jta.begin();

        assertThat(binding.bind(claim, true, committed::incrementAndGet)).isTrue();
        jta.commitWithUnknownOutcome();
        claim.release(); // the end of the request

        assertThat(store.calls("release")).as("never released: the work may have committed").isZero();
        assertThat(committed).as("onCommit: the outcome is not known to be committed").hasValue(0);
        assertThat(memory.find(KEY).orElseThrow().state()).isEqualTo(RecordState.EXECUTED);
        assertThat(outcomes()).doesNotContain(RELEASED, COMPLETED);
        elapse(policy.lease());
        assertThat(RetryOutcomes.of(((ClaimResult.Existing) retry()).record(), FINGERPRINT)).as("never a second run")
                .isEqualTo(IdempotencyOutcome.OUTCOME_LOST);
    }

    /**
     * The HTTP path of the same end: the response side stores whatever answer comes after the
     * method (here the 500 an exception of the commit is mapped to) unless the claim is closed by
     * then. An answer stored for a transaction whose outcome nobody knows would be replayed as if
     * it were the work's; the retries must be told the outcome is lost instead.
     */
    @Test
    void anHttpAnswerAfterATransactionWhoseOutcomeIsUnknownIsNeitherStoredNorReplayed() throws Exception {
        HttpClaim claim = httpClaim(false);
        jta.begin();

        assertThat(binding.bind(claim, true, null)).isTrue();
        jta.commitWithUnknownOutcome();
        // the response side, as OutcomeRecorder: an open claim's answer is stored
        if (claim.isOpen()) {
            claim.complete(StoredOutcome.of(500, Map.of(), "the commit failed".getBytes()));
        }
        claim.release(); // the end of the request

        assertThat(store.calls("complete")).as("no answer stands for work that may or may not have committed").isZero();
        assertThat(store.calls("release")).as("never released: the work may have committed").isZero();
        assertThat(RetryOutcomes.of(((ClaimResult.Existing) retry()).record(), FINGERPRINT)).as("meanwhile")
                .isEqualTo(IdempotencyOutcome.CONFLICT);
        elapse(policy.lease());
        assertThat(RetryOutcomes.of(((ClaimResult.Existing) retry()).record(), FINGERPRINT)).as("never a replay, never a second run")
                .isEqualTo(IdempotencyOutcome.OUTCOME_LOST);
    }

    /**
     * An HTTP resource method's failed stage: the key is released before the stage the container
     * gets ends, and that stage fails with the method's own exception, unwrapped, so that the
     * application's exception mapper for its type answers as it would without the annotation.
     */
    @Test
    void anHttpMethodsFailedStageReleasesTheKeyAndReachesTheContainerUnwrapped() throws Exception {
        OwnedClaim claim = claim();
        IllegalStateException missing = new IllegalStateException("no such order");

        Throwable seen = TransactionBinding.releasedOnFailure(claim, CompletableFuture.failedFuture(missing))
                .handle((value, failure) -> failure).toCompletableFuture().get(5, TimeUnit.SECONDS);

        assertThat(seen).isSameAs(missing);
        assertThat(retry()).as("released first").isInstanceOf(ClaimResult.Acquired.class);
    }

    /**
     * An asynchronous endpoint's work is not marked executed (it goes on after the method returns):
     * when its transaction's outcome is unknown, the claim is marked now, so that no retry takes it
     * over after its lease and runs work that may have committed a second time.
     */
    @Test
    void anAsyncHttpClaimWhoseTransactionOutcomeIsUnknownIsNeverRunAgain() throws Exception {
        HttpClaim claim = httpClaim(true);
        jta.begin();

        assertThat(binding.bind(claim, false, null)).isTrue();
        jta.commitWithUnknownOutcome();
        elapse(policy.lease());

        assertThat(RetryOutcomes.of(((ClaimResult.Existing) retry()).record(), FINGERPRINT))
                .as("after the lease: told the outcome is lost, never taken over").isEqualTo(IdempotencyOutcome.OUTCOME_LOST);
    }

    /**
     * An HTTP answer written while the transaction is still running (an {@code AsyncResponse}
     * resumed inside a {@code @Transactional} method, a transaction spanning the request), where the
     * store joins it (JPA): stored in it, and the claim held until it ends; the end of the request
     * meanwhile gives nothing back, and the rollback (which undid the stored answer) does.
     */
    @Test
    void anHttpAnswerStoredInARunningTransactionIsGivenBackWhenItRollsBack() throws Exception {
        store.joinsCallerTransaction(true);
        HttpClaim claim = httpClaim(true);
        jta.begin();

        binding.bind(claim, false, null);
        binding.storeWhenCommitted(claim, PLACED);
        assertThat(store.calls()).as("stored in the transaction").containsExactly("claim", "complete");
        assertThat(claim.release()).as("the end of the request: held for the transaction").isFalse();
        assertThat(outcomes()).as("nothing is completed before the commit").isEmpty();
        jta.rollback();

        assertThat(store.calls()).as("the rollback left the row in progress: given back")
                .containsExactly("claim", "complete", "release");
        assertThat(outcomes()).doesNotContain(COMPLETED);
    }

    @Test
    void anHttpAnswerStoredInARunningTransactionIsCompletedWithItsCommit() throws Exception {
        store.joinsCallerTransaction(true);
        HttpClaim claim = httpClaim(true);
        jta.begin();

        binding.bind(claim, false, null);
        binding.storeWhenCommitted(claim, PLACED);
        binding.storeWhenCommitted(claim, StoredOutcome.of(500, Map.of(), "written again as an error".getBytes()));
        assertThat(outcomes()).isEmpty();
        assertThat(jta.commit()).isTrue();

        assertThat(store.calls()).as("stored once, nothing written after the commit").containsExactly("claim", "complete");
        assertThat(outcomes()).containsExactly(COMPLETED);
        assertThat(claim.release()).isFalse();
        assertThat(((ClaimResult.Existing) retry()).record().outcome()).isEqualTo(PLACED);
    }

    @Test
    void anHttpAnswerInATransactionMarkedRollbackOnlyStoresNothingAndItsRollbackGivesTheKeyBack() throws Exception {
        store.joinsCallerTransaction(true);
        HttpClaim claim = httpClaim(true);
        jta.begin();
        binding.bind(claim, false, null);
        jta.setRollbackOnly();

        binding.storeWhenCommitted(claim, PLACED);
        assertThat(store.calls()).as("nothing stored, nothing released while it runs").containsExactly("claim");
        jta.rollback();

        assertThat(store.calls()).as("released by the method's binding at the rollback").containsExactly("claim", "release");
        assertThat(retry()).as("the key is free").isInstanceOf(ClaimResult.Acquired.class);
    }

    /**
     * Marked in the transaction, which is then marked rollback-only (the method threw under a
     * transaction spanning the request), and answered (a mapper's 4xx): nothing is stored, the claim
     * is left to the method's binding, which gives the key back once the rollback released the
     * mark's row (a release before it would wait for that row on a real database).
     */
    @Test
    void anHttpAnswerInARollbackOnlyTransactionThatMarkedTheWorkIsGivenBackOnlyAfterTheRollback() throws Exception {
        store.joinsCallerTransaction(true);
        HttpClaim claim = httpClaim(false);
        jta.begin();
        binding.bind(claim, true, null);
        jta.setRollbackOnly();

        binding.storeWhenCommitted(claim, StoredOutcome.of(402, Map.of(), "declined".getBytes()));
        assertThat(store.calls()).as("nothing stored or released while it runs").containsExactly("claim", "markExecuted");
        jta.rollback();

        assertThat(store.calls()).containsExactly("claim", "markExecuted", "release");
        assertThat(outcomes()).containsExactly(RELEASED);
    }

    /** A completion in the transaction that failed (the store down) is made once more after the commit. */
    @Test
    void anHttpAnswerWhoseStoreInTheTransactionFailedIsStoredAfterItsCommit() throws Exception {
        store.joinsCallerTransaction(true);
        HttpClaim claim = httpClaim(true);
        jta.begin();
        binding.bind(claim, false, null);
        store.down(true);

        binding.storeWhenCommitted(claim, PLACED);
        store.down(false);
        assertThat(jta.commit()).isTrue();

        assertThat(store.calls()).containsExactly("claim", "complete", "complete");
        assertThat(outcomes()).containsExactly(COMPLETED);
        assertThat(((ClaimResult.Existing) retry()).record().outcome()).isEqualTo(PLACED);
    }

    /**
     * As outside a transaction, the answer of an owner whose key was taken over is not stored and
     * its claim ends; its transaction is not made to roll back (the answer goes out).
     */
    @Test
    void anHttpAnswerOfAnOwnerWhoseKeyWasTakenOverInARunningTransactionEndsItsClaim() throws Exception {
        store.joinsCallerTransaction(true);
        HttpClaim slow = httpClaim(true);
        elapse(policy.lease());
        assertThat(retry()).as("taken over").isInstanceOf(ClaimResult.Acquired.class);
        jta.begin();

        binding.bind(slow, false, null);
        binding.storeWhenCommitted(slow, PLACED);
        assertThat(jta.commit()).isTrue();

        assertThat(store.calls()).containsExactly("claim", "claim", "complete");
        assertThat(memory.find(KEY).orElseThrow().state()).as("the new owner's claim").isEqualTo(RecordState.IN_PROGRESS);
        assertThat(outcomes()).isEmpty();
    }

    /**
     * The method's own transaction committed its mark; a transaction around the request that
     * stored the answer then rolled back: the work did commit, so the key is never given back.
     */
    @Test
    void aMarkTheMethodsTransactionCommittedOutlivesTheRollbackOfOneThatStoredTheAnswer() throws Exception {
        store.joinsCallerTransaction(true);
        HttpClaim claim = httpClaim(false);
        jta.begin();
        binding.bind(claim, true, null);
        assertThat(jta.commit()).isTrue();
        jta.begin();

        binding.storeWhenCommitted(claim, PLACED);
        jta.rollback();

        assertThat(store.calls("release")).as("never given back: the work committed").isZero();
    }

    @Test
    void aCommitRunsWhatComesAfterItAndTheOutcomeIsStoredOnce() {
        OwnedClaim claim = claim();
        jta.begin();

        binding.bind(claim, true, () -> claim.complete(PLACED));
        assertThat(store.calls("complete")).as("not before the commit").isZero();
        assertThat(jta.commit()).isTrue();
        claim.release(); // the end of the request finds it completed

        assertThat(memory.find(KEY).orElseThrow().outcome()).isEqualTo(PLACED);
        assertThat(store.calls("release")).isZero();
        assertThat(outcomes()).containsExactly(COMPLETED);
    }

    @Test
    void aMethodThatThrowsInsideATransactionThatCommitsStaysExecutedAndIsNeverRunAgain() {
        OwnedClaim claim = claim();
        Declined declined = new Declined();
        jta.begin();

        assertThatThrownBy(() -> binding.run(claim, () -> {
            throw declined;
        })).as("thrown on unchanged").isSameAs(declined);
        assertThat(store.calls("markExecuted")).as("marked just before the commit, not before").isZero();
        assertThat(jta.commit()).isTrue();

        assertThat(claim.executed()).isTrue();
        assertThat(claim.isOpen()).as("a mapper's answer may still be stored").isTrue();
        claim.release(); // no answer was stored: the end of the request
        ClaimResult during = retry();
        elapse(policy.lease());
        ClaimResult after = retry();

        assertThat(store.calls("release")).isZero();
        assertThat(during).isInstanceOf(ClaimResult.Existing.class);
        assertThat(after).as("never a second run").isInstanceOf(ClaimResult.Existing.class);
        assertThat(RetryOutcomes.of(((ClaimResult.Existing) after).record(), FINGERPRINT))
                .isEqualTo(IdempotencyOutcome.OUTCOME_LOST);
        assertThat(outcomes()).doesNotContain(RELEASED);
    }

    @Test
    void aValueReturnedInATransactionIsStoredInItWhereTheStoreJoinsTheTransactionAndTheCommitWritesNothing() {
        store.joinsCallerTransaction(true);
        OwnedClaim claim = claim();
        jta.begin();

        assertThat(binding.completeWithCommit(claim, PLACED)).isTrue();
        assertThat(store.calls()).as("the outcome, in the transaction, with the work").containsExactly("claim", "complete");
        assertThat(claim.isOpen()).as("a rollback must still release it").isTrue();
        assertThat(outcomes()).doesNotContain(COMPLETED);
        assertThat(jta.commit()).isTrue();

        assertThat(store.calls()).as("nothing written after the commit").containsExactly("claim", "complete");
        assertThat(claim.isOpen()).isFalse();
        assertThat(outcomes()).containsExactly(COMPLETED);
        assertThat(((ClaimResult.Existing) retry()).record().outcome()).isEqualTo(PLACED);
    }

    @Test
    void aValueStoredInATransactionThatRollsBackIsReleasedWithIt() {
        store.joinsCallerTransaction(true);
        OwnedClaim claim = claim();
        jta.begin();

        binding.completeWithCommit(claim, PLACED);
        jta.rollback();

        assertThat(store.calls()).as("the row the rollback left in progress is given back")
                .containsExactly("claim", "complete", "release");
        assertThat(outcomes()).doesNotContain(COMPLETED);
        assertThat(claim.isOpen()).isFalse();
    }

    @Test
    void anOwnerWhoseKeyWasTakenOverCannotStoreItsValueAndItsTransactionMustRollBack() {
        store.joinsCallerTransaction(true);
        OwnedClaim slow = claim();
        elapse(policy.lease());
        ClaimResult.Acquired takeover = (ClaimResult.Acquired) retry();
        jta.begin();

        assertThatThrownBy(() -> binding.completeWithCommit(slow, PLACED)).isInstanceOf(IdempotencyConflictException.class);

        assertThat(jta.commit()).as("the slow owner's writes never commit").isFalse();
        assertThat(memory.find(KEY).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(store.complete(KEY, takeover.owner(), PLACED, policy.ttl())).isTrue();
    }

    @Test
    void aStoreFailureStoringTheValueInTheTransactionMakesItRollBack() {
        store.joinsCallerTransaction(true);
        OwnedClaim claim = claim();
        jta.begin();
        store.down(true);

        assertThatThrownBy(() -> binding.completeWithCommit(claim, PLACED)).isInstanceOf(IdempotencyStoreException.class);

        assertThat(jta.commit()).as("the work is not fenced: it must not commit").isFalse();
    }

    /**
     * A store that does not join the transaction fails the mark when the method returns (twice:
     * it is asked again). The caller is told, and may catch it (a batch going on with its other
     * rows): the transaction must not commit the work's writes without the mark, or a retry
     * after the lease would run them a second time.
     */
    @Test
    void aMarkTheStoreFailedWhenTheMethodReturnedMakesTheTransactionRollBack() {
        OwnedClaim claim = claim();
        jta.begin();
        store.down(true);

        assertThatThrownBy(() -> binding.completeWithCommit(claim, PLACED)).isInstanceOf(IdempotencyStoreException.class);
        store.down(false);

        assertThat(jta.commit()).as("the work is not fenced: it must not commit").isFalse();
        assertThat(memory.find(KEY)).as("given back with the rollback").isEmpty();
        assertThat(retry()).isInstanceOf(ClaimResult.Acquired.class);
    }

    @Test
    void aValueReturnedInATransactionIsCompletedAfterTheCommitWhereTheStoreDoesNotJoinIt() {
        OwnedClaim claim = claim();
        jta.begin();

        assertThat(binding.completeWithCommit(claim, PLACED)).isTrue();
        assertThat(store.calls()).containsExactly("claim", "markExecuted");
        assertThat(jta.commit()).isTrue();

        assertThat(store.calls()).containsExactly("claim", "markExecuted", "complete");
        assertThat(((ClaimResult.Existing) retry()).record().outcome()).isEqualTo(PLACED);
    }

    @Test
    void aMethodThatThrowsInsideATransactionThatCommitsIsMarkedAtOnceWhereTheStoreJoinsTheTransaction() {
        store.joinsCallerTransaction(true);
        OwnedClaim claim = claim();
        jta.begin();

        assertThatThrownBy(() -> binding.run(claim, () -> {
            throw new Declined();
        })).isInstanceOf(Declined.class);
        assertThat(store.calls("markExecuted")).as("inside the transaction, with its writes").isEqualTo(1);
        assertThat(jta.commit()).isTrue();

        claim.release();
        assertThat(store.calls("release")).isZero();
        assertThat(memory.find(KEY).orElseThrow().state()).isEqualTo(RecordState.EXECUTED);
    }

    @Test
    void aMethodThatThrowsInsideATransactionThatRollsBackIsReleased() {
        OwnedClaim claim = claim();
        jta.begin();

        assertThatThrownBy(() -> binding.run(claim, () -> {
            throw new IllegalStateException("out of stock");
        })).isInstanceOf(IllegalStateException.class);
        assertThat(claim.isOpen()).as("nothing is decided until the transaction ends").isTrue();
        jta.rollback();

        assertThat(store.calls("markExecuted")).isZero();
        assertThat(store.calls("release")).isEqualTo(1);
        assertThat(retry()).isInstanceOf(ClaimResult.Acquired.class);
    }

    @Test
    void aMethodThatThrowsWithoutATransactionIsReleasedAtOnceAndItsExceptionPassesUnchanged() {
        OwnedClaim claim = claim();
        IllegalStateException failure = new IllegalStateException("out of stock");

        assertThatThrownBy(() -> binding.run(claim, () -> {
            throw failure;
        })).isSameAs(failure);

        assertThat(claim.isOpen()).isFalse();
        assertThat(store.calls("release")).isEqualTo(1);
        assertThat(outcomes()).containsExactly(RELEASED);
        assertThat(retry()).isInstanceOf(ClaimResult.Acquired.class);
    }

    @Test
    void anOwnerWhoseKeyWasTakenOverCannotMarkItsWorkAndItsTransactionMustRollBack() {
        OwnedClaim slow = claim();
        elapse(policy.lease());
        ClaimResult takeover = retry();
        assertThat(takeover).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(((ClaimResult.Acquired) takeover).takeover()).isTrue();
        jta.begin();

        assertThatThrownBy(() -> binding.bind(slow, true, null)).isInstanceOf(IdempotencyConflictException.class);

        assertThat(jta.getRollbackOnly()).isTrue();
        assertThat(jta.commit()).as("the slow owner's writes never commit").isFalse();
        assertThat(memory.find(KEY).orElseThrow().state()).as("the new owner's claim is untouched")
                .isEqualTo(RecordState.IN_PROGRESS);
        assertThat(store.complete(KEY, ((ClaimResult.Acquired) takeover).owner(), PLACED, policy.ttl())).isTrue();
    }

    @Test
    void anOwnerWhoseKeyWasTakenOverWhileItsMethodThrewIsToldSoAndItsFailureIsKept() {
        store.joinsCallerTransaction(true);
        OwnedClaim slow = claim();
        elapse(policy.lease());
        retry();
        Declined declined = new Declined();
        jta.begin();

        assertThatThrownBy(() -> binding.run(slow, () -> {
            throw declined;
        })).isInstanceOf(IdempotencyConflictException.class).hasSuppressedException(declined);

        assertThat(jta.commit()).isFalse();
    }

    @Test
    void theCommitOfAnOwnerWhoseKeyWasTakenOverBeforeItsMethodThrewFailsWhereTheMarkWaitsForTheCommit() {
        OwnedClaim slow = claim();
        elapse(policy.lease());
        retry();
        jta.begin();

        assertThatThrownBy(() -> binding.run(slow, () -> {
            throw new Declined();
        })).as("not known yet: the mark is made just before the commit").isInstanceOf(Declined.class);

        assertThat(jta.commit()).as("refused at the mark").isFalse();
        assertThat(memory.find(KEY).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
    }

    @Test
    void withoutATransactionBindReturnsFalseAndLeavesTheClaimToTheCaller() {
        OwnedClaim claim = claim();
        AtomicInteger committed = new AtomicInteger();

        assertThat(binding.bind(claim, true, committed::incrementAndGet)).isFalse();

        FakeJta.uninstall();
        assertThat(new TransactionBinding(new TransactionGuard()).bind(claim, true, committed::incrementAndGet))
                .as("no JNDI at all").isFalse();
        assertThat(committed).hasValue(0);
        assertThat(claim.isOpen()).isTrue();
        assertThat(store.calls("markExecuted")).isZero();
    }

    @Test
    void workInATransactionAlreadyMarkedRollbackOnlyIsNotMarkedAndIsReleasedWithTheRollback() {
        OwnedClaim claim = claim();
        jta.begin();
        jta.setRollbackOnly();

        assertThat(binding.bind(claim, true, null)).isTrue();
        assertThat(store.calls("markExecuted")).isZero();
        assertThat(jta.commit()).isFalse();

        assertThat(store.calls("release")).isEqualTo(1);
        assertThat(retry()).isInstanceOf(ClaimResult.Acquired.class);
    }
}
