package dev.idempotency.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.Idempotent;
import dev.idempotency.exceptions.IdempotencyConflictException;
import dev.idempotency.exceptions.IdempotencyException;
import dev.idempotency.exceptions.IdempotencyKeyReuseException;

/**
 * Outcomes count only once the transaction around the method committed, whatever the method's
 * shape: a value, a stage, a checked exception the transaction commits despite; and only the
 * owner that still holds the key may commit, however slow it was.
 */
class TransactionBindingTest {

    /** A declined payment: a checked exception that the transaction commits despite (dontRollbackOn). */
    public static class Declined extends Exception {
        private static final long serialVersionUID = 1L;

        public Declined(String message) {
            super(message);
        }
    }

    @ApplicationScoped
    public static class Ledger {
        final AtomicInteger executions = new AtomicInteger();
        final AtomicInteger committedEffects = new AtomicInteger();

        public int executions() {
            return executions.get();
        }

        public int committedEffects() {
            return committedEffects.get();
        }

        /** One execution; its effect counts when its transaction commits, at once without one. */
        private int effect() {
            if (FakeJta.INSTANCE.getTransactionStatus() == jakarta.transaction.Status.STATUS_NO_TRANSACTION) {
                committedEffects.incrementAndGet();
            } else {
                FakeJta.INSTANCE.onCommit(committedEffects::incrementAndGet);
            }
            return executions.incrementAndGet();
        }

        @Idempotent
        public CompletionStage<String> stage(@IdempotencyKey String id) {
            return CompletableFuture.completedFuture("done " + effect());
        }

        /** A stage the test completes when it likes: after the transaction ended, say. */
        @Idempotent(fingerprintArguments = false)
        public CompletionStage<String> pending(@IdempotencyKey String id, CompletableFuture<String> result) {
            effect();
            return result;
        }

        /** As {@link #pending}, with a value its caller may change. */
        @Idempotent(fingerprintArguments = false)
        public CompletionStage<java.util.List<String>> listed(@IdempotencyKey String id,
                CompletableFuture<java.util.List<String>> result) {
            effect();
            return result;
        }

        /** No effect bound to a transaction: callable where one just ended. */
        @Idempotent
        public String send(@IdempotencyKey String id) {
            return "sent #" + executions.incrementAndGet();
        }

        @Idempotent
        public String charge(@IdempotencyKey String id, int cents) {
            return "charged " + cents + " #" + effect();
        }

        @Idempotent(lease = "PT0.5S", fingerprintArguments = false)
        public String slow(@IdempotencyKey String id, long millis) throws InterruptedException {
            int execution = effect();
            Thread.sleep(millis);
            return "slow " + execution;
        }

        @Idempotent(lease = "PT0.5S", fingerprintArguments = false)
        public String declined(@IdempotencyKey String id, long millis) throws InterruptedException, Declined {
            int execution = effect();
            Thread.sleep(millis);
            throw new Declined("declined " + execution);
        }
    }

    private final FakeJta jta = FakeJta.INSTANCE;
    private WeldContainer container;
    private Ledger ledger;
    private ExecutorService other;

    @BeforeEach
    void start() {
        FakeJta.install();
        container = TestContainers.weld(Ledger.class).initialize();
        ledger = container.select(Ledger.class).get();
        other = Executors.newSingleThreadExecutor();
    }

    @AfterEach
    void stop() {
        other.shutdownNow();
        jta.forget();
        container.close();
        FakeJta.uninstall();
    }

    /**
     * docs/non-http-callers.md: the same key twice in one transaction (a batch with a duplicate
     * row) is a duplicate of a call in progress, with other arguments a reuse of the key, answered
     * without asking the store (on the JPA store the second claim waited for the row the caller's
     * own transaction held: NonHttpIT), also once the transaction is marked rollback-only; the
     * rollback frees the key.
     */
    @Test
    void theSameKeyTwiceInOneTransactionIsADuplicateInProgressAndTheRollbackFreesIt() {
        jta.begin();
        assertThat(ledger.charge("c-1", 100)).isEqualTo("charged 100 #1");

        assertThatThrownBy(() -> ledger.charge("c-1", 100)).isInstanceOf(IdempotencyConflictException.class);
        assertThatThrownBy(() -> ledger.charge("c-1", 250)).isInstanceOf(IdempotencyKeyReuseException.class);
        jta.setRollbackOnly();
        assertThatThrownBy(() -> ledger.charge("c-1", 100)).as("rollback-only")
                .isInstanceOf(IdempotencyConflictException.class);
        jta.rollback();

        assertThat(ledger.charge("c-1", 100)).as("nothing committed: it runs").isEqualTo("charged 100 #2");
        assertThat(ledger.charge("c-1", 100)).as("then replayed").isEqualTo("charged 100 #2");
        assertThat(ledger.executions()).isEqualTo(2);
    }

    /**
     * Calls made where a transaction just committed (Narayana keeps it on the thread during its
     * synchronizations' afterCompletion, where an AFTER_SUCCESS observer runs) end at once, not with
     * it: a second call with the key is a duplicate of a completed call, replayed.
     */
    @Test
    void callsMadeAfterTheTransactionCommittedAreNotTakenForItsOwn() {
        List<String> answers = new ArrayList<>();
        jta.begin();
        jta.onCommit(() -> {
            answers.add(ledger.send("n-1"));
            answers.add(ledger.send("n-1"));
        });

        assertThat(jta.commit()).isTrue();

        assertThat(answers).containsExactly("sent #1", "sent #1");
    }

    /**
     * An {@code AFTER_FAILURE} observer (or {@code AFTER_COMPLETION} after a rollback): the method is
     * called with the rolled-back transaction still on the thread (Narayana, Payara). Its work runs
     * outside that transaction, so it counts as soon as it returns: the rollback it came after must
     * not give its key back.
     */
    @Test
    void callsMadeAfterTheTransactionRolledBackAreNotTakenForItsOwn() {
        List<String> answers = new ArrayList<>();
        jta.begin();
        jta.onRollback(() -> {
            answers.add(ledger.send("n-2"));
            answers.add(ledger.send("n-2"));
        });

        jta.rollback();

        assertThat(answers).containsExactly("sent #1", "sent #1");
    }

    /**
     * A method that goes on after a transaction timeout's reaper rolled its transaction back, and
     * calls another {@code @Idempotent} method: that call is not made after its transaction (it is
     * not in the transaction's {@code afterCompletion}), it is made in it, and nothing it did counts:
     * its key is given back.
     */
    @Test
    void aCallMadeInATransactionATimeoutRolledBackUnderTheCallerDoesNotCount() {
        jta.begin();
        jta.rollBackUnderTheMethod();

        assertThat(ledger.send("n-3")).isEqualTo("sent #1");
        jta.forget(); // the caller's method ended

        assertThat(ledger.send("n-3")).as("nothing it did counted: it runs again").isEqualTo("sent #2");
    }

    @Test
    void aStageCompletedInsideATransactionThatRolledBackIsNotReplayed() throws Exception {
        jta.begin();
        assertThat(ledger.stage("s-1").toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo("done 1");
        jta.rollback();

        jta.begin();
        assertThat(ledger.stage("s-1").toCompletableFuture().get(5, TimeUnit.SECONDS))
                .as("nothing happened the first time: it runs again").isEqualTo("done 2");
        assertThat(jta.commit()).isTrue();

        assertThat(ledger.stage("s-1").toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo("done 2");
        assertThat(ledger.executions()).isEqualTo(2);
        assertThat(ledger.committedEffects()).isEqualTo(1);
    }

    @Test
    void aStageCompletedInsideATransactionIsStoredOnlyOnceItCommitted() throws Exception {
        jta.begin();
        ledger.stage("s-2").toCompletableFuture().get(5, TimeUnit.SECONDS);
        Future<String> duplicate = other.submit(() -> ledger.stage("s-2").toCompletableFuture().get(5, TimeUnit.SECONDS));
        assertThatThrownBy(() -> duplicate.get(5, TimeUnit.SECONDS)).as("before the commit: still in progress")
                .hasRootCauseInstanceOf(IdempotencyConflictException.class);
        assertThat(jta.commit()).isTrue();

        assertThat(ledger.stage("s-2").toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo("done 1");
        assertThat(ledger.executions()).isEqualTo(1);
    }

    @Test
    void aSlowExecutionThatNobodyTookOverCommitsAndReplays() throws Exception {
        jta.begin();
        assertThat(ledger.slow("w-1", 800)).isEqualTo("slow 1");
        assertThat(jta.commit()).as("slower than its lease, but nobody competed").isTrue();

        assertThat(ledger.slow("w-1", 800)).isEqualTo("slow 1");
        assertThat(ledger.executions()).isEqualTo(1);
        assertThat(ledger.committedEffects()).isEqualTo(1);
    }

    @Test
    void aSlowExecutionWithoutATransactionIsStoredAndReplays() throws Exception {
        assertThat(ledger.slow("w-2", 800)).isEqualTo("slow 1");

        assertThat(ledger.slow("w-2", 800)).isEqualTo("slow 1");
        assertThat(ledger.executions()).isEqualTo(1);
    }

    @Test
    void aSlowOwnerTakenOverMidwayDoesNotCommitItsWork() throws Exception {
        Future<Boolean> slowOwner = other.submit(() -> {
            jta.begin();
            try {
                ledger.slow("w-3", 1200);
            } catch (IdempotencyConflictException expected) {
                // its key was taken over: its transaction must not commit
            }
            return jta.commit();
        });
        Thread.sleep(700); // the slow owner's lease (0.5 s) ran out
        jta.begin();
        assertThat(ledger.slow("w-3", 0)).isEqualTo("slow 2");
        assertThat(jta.commit()).isTrue();

        assertThat(slowOwner.get(10, TimeUnit.SECONDS)).as("the slow owner's transaction committed").isFalse();
        assertThat(ledger.committedEffects()).isEqualTo(1);
        assertThat(ledger.slow("w-3", 0)).isEqualTo("slow 2");
    }

    @Test
    void aCheckedExceptionCommittedDespiteIsExecutedOnceAndNeverRunsAgain() throws Exception {
        jta.begin();
        assertThatThrownBy(() -> ledger.declined("d-1", 0)).isInstanceOf(Declined.class);
        assertThat(jta.commit()).isTrue();

        assertThatThrownBy(() -> ledger.declined("d-1", 0)).as("its writes are in: it never runs again")
                .isInstanceOf(IdempotencyException.class);
        assertThat(ledger.executions()).isEqualTo(1);
    }

    @Test
    void aCheckedExceptionOfASlowOwnerTakenOverMidwayDoesNotCommitItsWork() throws Exception {
        Future<Boolean> slowOwner = other.submit(() -> {
            jta.begin();
            try {
                ledger.declined("d-2", 1200);
            } catch (Declined | IdempotencyConflictException expected) {
                // either way, the transaction decides what counts
            }
            return jta.commit();
        });
        Thread.sleep(700);
        jta.begin();
        assertThatThrownBy(() -> ledger.declined("d-2", 0)).isInstanceOf(Declined.class);
        assertThat(jta.commit()).isTrue();

        assertThat(slowOwner.get(10, TimeUnit.SECONDS)).as("the slow owner's transaction committed").isFalse();
        assertThat(ledger.committedEffects()).as("one committed execution").isEqualTo(1);
    }

    @Test
    void aStageThatFailsAfterItsTransactionCommittedNeverLetsARetryRedoTheCommittedWork() throws Exception {
        CompletableFuture<String> result = new CompletableFuture<>();
        jta.begin();
        CompletionStage<String> answer = ledger.pending("p-1", result);
        assertThat(jta.commit()).isTrue();
        result.completeExceptionally(new IllegalStateException("the stage's own part failed"));
        assertThatThrownBy(() -> answer.toCompletableFuture().get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);

        assertThatThrownBy(() -> ledger.pending("p-1", CompletableFuture.completedFuture("again")).toCompletableFuture()
                .get(5, TimeUnit.SECONDS)).as("the committed part is in: it never runs again")
                .hasRootCauseInstanceOf(IdempotencyException.class);
        assertThat(ledger.executions()).isEqualTo(1);
    }

    /**
     * A stage completed inside another transaction than the method's (an asynchronous bean with a
     * transaction of its own completes it, then its commit fails): the value stands for work that
     * rolled back, so it is stored only when that transaction commits, and a rollback releases the key.
     */
    @Test
    void aStageCompletedInsideAnotherTransactionThatRollsBackIsNotReplayed() throws Exception {
        CompletableFuture<String> result = new CompletableFuture<>();
        CompletionStage<String> answer = ledger.pending("p-3", result);
        jta.begin(); // the completing thread's own transaction
        result.complete("paid");
        jta.rollback();
        assertThat(answer.toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo("paid");

        assertThat(ledger.pending("p-3", CompletableFuture.completedFuture("paid again")).toCompletableFuture()
                .get(5, TimeUnit.SECONDS)).as("nothing happened: it runs again").isEqualTo("paid again");
        assertThat(ledger.executions()).isEqualTo(2);
    }

    @Test
    void aStageCompletedInsideAnotherTransactionIsStoredWhenItCommits() throws Exception {
        CompletableFuture<String> result = new CompletableFuture<>();
        ledger.pending("p-4", result);
        jta.begin();
        result.complete("paid");
        assertThat(jta.commit()).isTrue();

        assertThat(ledger.pending("p-4", CompletableFuture.completedFuture("paid again")).toCompletableFuture()
                .get(5, TimeUnit.SECONDS)).as("a replay").isEqualTo("paid");
        assertThat(ledger.executions()).isEqualTo(1);
    }

    /**
     * The method ran in a transaction of its own (T1), and its stage was completed inside another
     * one (T2, on another thread) before T1 ended; T2 then rolled back and T1 committed. The value
     * stands for work that rolled back: never replayed. T1's part committed: never run again.
     */
    @Test
    void aStageCompletedInsideAnotherTransactionBeforeTheMethodsEndedIsNotReplayedWhenThatOneRollsBack()
            throws Exception {
        CompletableFuture<String> result = new CompletableFuture<>();
        jta.begin();
        CompletionStage<String> answer = ledger.pending("p-5", result);
        other.submit(() -> {
            jta.begin();
            result.complete("paid");
            jta.rollback();
        }).get(5, TimeUnit.SECONDS);
        assertThat(jta.commit()).isTrue();
        assertThat(answer.toCompletableFuture().get(5, TimeUnit.SECONDS)).as("the caller got the stage's value")
                .isEqualTo("paid");

        assertThatThrownBy(() -> ledger.pending("p-5", CompletableFuture.completedFuture("paid again")).toCompletableFuture()
                .get(5, TimeUnit.SECONDS)).as("no replay of the rolled-back value, and the committed part never again")
                .hasRootCauseInstanceOf(IdempotencyException.class);
        assertThat(ledger.executions()).isEqualTo(1);
    }

    @Test
    void aStageWhoseTransactionRolledBackHoldsTheKeyUntilItEndsThenReleasesItWhateverItsValue() throws Exception {
        // The method's asynchronous part (a call to a payment gateway) still runs after its
        // transaction rolled back: the key was released at once, and a retry started it again.
        // Once the stage ended, its value (for work that rolled back) is not replayed.
        CompletableFuture<String> result = new CompletableFuture<>();
        jta.begin();
        ledger.pending("p-9", result);
        jta.rollback();

        assertThatThrownBy(() -> ledger.pending("p-9", CompletableFuture.completedFuture("second")).toCompletableFuture()
                .get(5, TimeUnit.SECONDS)).hasRootCauseInstanceOf(IdempotencyConflictException.class);
        assertThat(ledger.executions()).isEqualTo(1);

        result.complete("first");
        assertThat(ledger.pending("p-9", CompletableFuture.completedFuture("ran again")).toCompletableFuture()
                .get(5, TimeUnit.SECONDS)).as("once it ended, the rolled-back work may run again").isEqualTo("ran again");
        assertThat(ledger.executions()).isEqualTo(2);
    }

    @Test
    void aStageCommittedInATransactionOfItsOwnIsNeverRunAgainWhenTheMethodsTransactionRollsBack() throws Exception {
        // An asynchronous bean charged the card in a transaction of its own, which committed, and
        // completed the stage; the method's transaction then rolled back. The key was released,
        // and a retry charged the card a second time.
        CompletableFuture<String> result = new CompletableFuture<>();
        jta.begin();
        ledger.pending("p-10", result);
        assertThat(completedInATransactionOfItsOwn(result, true)).isTrue();
        jta.rollback();

        assertNotChargedAgain("p-10");
    }

    @Test
    void aStageCommittedInATransactionOfItsOwnAfterTheMethodsRolledBackIsNeverRunAgain() throws Exception {
        // The other order: the method's transaction rolled back first, the asynchronous bean's
        // committed after it.
        CompletableFuture<String> result = new CompletableFuture<>();
        jta.begin();
        ledger.pending("p-11", result);
        jta.rollback();
        assertThat(completedInATransactionOfItsOwn(result, true)).isTrue();

        assertNotChargedAgain("p-11");
    }

    @Test
    void aStageWhoseOwnTransactionRolledBackTooIsReleased() throws Exception {
        // Nothing committed anywhere: the retry runs.
        CompletableFuture<String> result = new CompletableFuture<>();
        jta.begin();
        ledger.pending("p-12", result);
        completedInATransactionOfItsOwn(result, false);
        jta.rollback();

        assertThat(ledger.pending("p-12", CompletableFuture.completedFuture("ran again")).toCompletableFuture()
                .get(5, TimeUnit.SECONDS)).isEqualTo("ran again");
        assertThat(ledger.executions()).isEqualTo(2);
    }

    /** Completes the stage on another thread, inside a transaction of that thread's own (an asynchronous bean's). */
    private boolean completedInATransactionOfItsOwn(CompletableFuture<String> result, boolean commit) throws Exception {
        return other.submit(() -> {
            jta.begin();
            result.complete("charged");
            if (commit) {
                return jta.commit();
            }
            jta.rollback();
            return false;
        }).get(5, TimeUnit.SECONDS);
    }

    private void assertNotChargedAgain(String key) {
        assertThatThrownBy(() -> ledger.pending(key, CompletableFuture.completedFuture("charged again"))
                .toCompletableFuture().get(5, TimeUnit.SECONDS)).hasRootCauseInstanceOf(IdempotencyException.class);
        assertThat(ledger.executions()).as("the committed charge is not made again").isEqualTo(1);
    }

    @Test
    void aStagesValueIsStoredAsItWasWhenItsCallerGotIt() throws Exception {
        // Stored at the commit, after the caller had the value: what the caller changed meanwhile
        // was replayed.
        CompletableFuture<java.util.List<String>> result = new CompletableFuture<>();
        jta.begin();
        CompletionStage<java.util.List<String>> answer = ledger.listed("l-1", result);
        result.complete(new java.util.ArrayList<>(java.util.List.of("a")));
        answer.toCompletableFuture().get(5, TimeUnit.SECONDS).add("changed by the caller");
        assertThat(jta.commit()).isTrue();

        assertThat(ledger.listed("l-1", new CompletableFuture<>()).toCompletableFuture().get(5, TimeUnit.SECONDS))
                .containsExactly("a");
    }

    @Test
    void aStageThatSucceedsAfterItsTransactionCommittedIsReplayed() throws Exception {
        CompletableFuture<String> result = new CompletableFuture<>();
        jta.begin();
        ledger.pending("p-3", result);
        assertThat(jta.commit()).isTrue();
        result.complete("done later");

        assertThat(ledger.pending("p-3", new CompletableFuture<>()).toCompletableFuture().get(5, TimeUnit.SECONDS))
                .isEqualTo("done later");
        assertThat(ledger.executions()).isEqualTo(1);
    }
}
