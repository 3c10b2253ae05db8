package dev.idempotency.spi.support;

import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.naming.NoInitialContextException;

import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * Ties a claim to the JTA transaction the intercepted method ran in, when there is one: the
 * outcome may only count once the transaction committed. If it rolls back (a commit failure
 * thrown after the interceptor returned, a {@code setRollbackOnly}), nothing happened, and the
 * claim must be released, not completed.
 */
public final class TransactionGuard {

    private static final String REGISTRY = "java:comp/TransactionSynchronizationRegistry";

    /** How a transaction ended, as its synchronizations are told. */
    public enum End {
        /** it committed */
        COMMITTED,
        /** it rolled back: nothing it did happened */
        ROLLED_BACK,
        /**
         * the transaction manager cannot tell ({@code STATUS_UNKNOWN}: a heuristic hazard, a resource
         * that did not answer the commit): the work may have committed, so it must never run again
         */
        UNKNOWN
    }

    private volatile TransactionSynchronizationRegistry registry;
    private volatile boolean absent;
    /** Threads whose look-up failed: threads the application started itself, or a container without transactions. */
    private final ThreadLocal<Boolean> noRegistryOnThisThread = new ThreadLocal<>();
    /** Set on a thread while it runs a call made after its transaction rolled back ({@link #inCallAfterItsTransaction()}). */
    private static final ThreadLocal<Boolean> CALL_AFTER_ITS_TRANSACTION = new ThreadLocal<>();
    private static final StackWalker FRAMES = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    /** @return a guard that sees no transaction on any thread: for work that runs outside the one on its thread */
    public static TransactionGuard none() {
        TransactionGuard none = new TransactionGuard();
        none.absent = true;
        return none;
    }

    /**
     * @return whether this thread runs inside a transaction synchronization's
     *     {@code afterCompletion} (an observer {@code during = AFTER_FAILURE} or
     *     {@code AFTER_COMPLETION}): a rolled-back transaction on the thread then is the one that
     *     ended, not one a timeout's reaper rolled back under a method still running in it. Walks
     *     the thread's stack: asked only where a call finds its transaction rolled back.
     */
    public static boolean inAfterCompletion() {
        return FRAMES.walk(frames -> frames.anyMatch(frame -> frame.getMethodName().equals("afterCompletion")
                && Synchronization.class.isAssignableFrom(frame.getDeclaringClass())));
    }

    /**
     * Notes that this thread now runs a call made after its transaction rolled back (an
     * {@code AFTER_FAILURE} observer: Narayana and Payara keep the ended transaction on the thread
     * while its synchronizations run). The call's work happens outside that transaction, so what a
     * store would join it with must go into a transaction of the store's own; until
     * {@link #endCallAfterItsTransaction()}.
     *
     * @return {@code false} when the thread ran such a call already (a nested one): the outer call
     *     ends it, not this one
     */
    public static boolean beginCallAfterItsTransaction() {
        if (inCallAfterItsTransaction()) {
            return false;
        }
        CALL_AFTER_ITS_TRANSACTION.set(Boolean.TRUE);
        return true;
    }

    /** Ends what {@link #beginCallAfterItsTransaction()} began. */
    public static void endCallAfterItsTransaction() {
        CALL_AFTER_ITS_TRANSACTION.remove();
    }

    /**
     * @return whether this thread runs a call made after its transaction rolled back: a rolled-back
     *     transaction on the thread is then not the call's (unlike one a timeout's reaper rolled back
     *     under a running method, whose work must not be recorded apart from it)
     */
    public static boolean inCallAfterItsTransaction() {
        return CALL_AFTER_ITS_TRANSACTION.get() != null;
    }

    /**
     * @param onEnd called after the transaction ended, with how it ended
     * @return {@code true} if a transaction is on this thread and {@code onEnd} will be (or, for
     *     one whose rollback is already decided, was) called with its end; {@code false} if there
     *     is none, or it committed already (then the caller ends the claim itself)
     */
    public boolean whenTransactionEnds(Consumer<End> onEnd) {
        TransactionSynchronizationRegistry transactions = registry();
        int status = status(transactions);
        if (rollingBackOrRolledBack(status)) {
            // Rolled back under the method (a transaction timeout's reaper): the work never happened.
            onEnd.accept(End.ROLLED_BACK);
            return true;
        }
        // A transaction already marked rollback-only will roll back: it counts as well as an active one.
        if (status != Status.STATUS_ACTIVE && status != Status.STATUS_MARKED_ROLLBACK) {
            return false;
        }
        try {
            transactions.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                }

                @Override
                public void afterCompletion(int status) {
                    onEnd.accept(status == Status.STATUS_COMMITTED ? End.COMMITTED
                            : status == Status.STATUS_ROLLEDBACK ? End.ROLLED_BACK : End.UNKNOWN);
                }
            });
        } catch (IllegalStateException refused) {
            if (transactions.getTransactionStatus() == Status.STATUS_ACTIVE) {
                throw refused;
            }
            // Narayana (WildFly) takes no synchronization on a rollback-only transaction (ARJUNA016083),
            // where Payara's and Liberty's managers do; or it was doomed since the status was read: its
            // end is already decided, a rollback.
            onEnd.accept(End.ROLLED_BACK);
        }
        return true;
    }

    /**
     * Runs a check just before this thread's active transaction commits (in {@code beforeCompletion},
     * which runs only when a commit is attempted); when it answers {@code false} the transaction
     * rolls back instead.
     *
     * @param mayCommit the check
     */
    public void beforeCommit(BooleanSupplier mayCommit) {
        TransactionSynchronizationRegistry transactions = registry();
        if (status(transactions) != Status.STATUS_ACTIVE) {
            return;
        }
        transactions.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
                if (!mayCommit.getAsBoolean()) {
                    try {
                        transactions.setRollbackOnly();
                    } catch (IllegalStateException e) {
                        // A synchronization's exception rolls the transaction back too.
                        throw new IllegalStateException("the transaction must not commit", e);
                    }
                }
            }

            @Override
            public void afterCompletion(int status) {
            }
        });
    }

    /** Marks the thread's transaction, if any, rollback-only: it must not commit, whoever catches what. */
    public void setRollbackOnly() {
        TransactionSynchronizationRegistry transactions = registry();
        if (status(transactions) == Status.STATUS_ACTIVE) {
            transactions.setRollbackOnly();
        }
    }

    /** @return whether a JTA transaction is associated with this thread, in whatever state */
    public boolean present() {
        return status(registry()) != Status.STATUS_NO_TRANSACTION;
    }

    /**
     * @return whether this thread is known to have no JTA transaction: the transaction
     *     synchronization registry was found and reports none. {@code false} where that cannot be
     *     told (no registry on this thread or none found yet, no JNDI), where {@link #present()}
     *     answers {@code false} too: work that must not escape a caller's transaction asks this
     */
    public boolean knownAbsent() {
        TransactionSynchronizationRegistry transactions = registry();
        return transactions != null && transactions.getTransactionStatus() == Status.STATUS_NO_TRANSACTION;
    }

    /**
     * @return whether this thread still carries a transaction that has committed: Narayana
     *     (WildFly) runs a synchronization's {@code afterCompletion} so, where {@code REQUIRED}
     *     would join the ended transaction instead of beginning a new one
     */
    public boolean committed() {
        return status(registry()) == Status.STATUS_COMMITTED;
    }

    /**
     * @return whether this thread still carries a transaction that ended without rolling back (in its
     *     synchronizations' {@code afterCompletion}): committed, or with an end the transaction
     *     manager cannot tell ({@code STATUS_UNKNOWN}); nothing can join it any more
     */
    public boolean endedWithoutRollback() {
        int status = status(registry());
        return status == Status.STATUS_COMMITTED || status == Status.STATUS_UNKNOWN;
    }

    /**
     * @return whether this thread's transaction is rolling back or rolled back (a timeout's reaper
     *     may do that under a running method): nothing may commit on its behalf
     */
    public boolean rolledBack() {
        return rollingBackOrRolledBack(status(registry()));
    }

    private static boolean rollingBackOrRolledBack(int status) {
        return status == Status.STATUS_ROLLEDBACK || status == Status.STATUS_ROLLING_BACK;
    }

    /** @return the key of this thread's transaction (equal for the same transaction), or {@code null} */
    public Object transactionKey() {
        TransactionSynchronizationRegistry transactions = registry();
        return transactions == null ? null : transactions.getTransactionKey();
    }

    /**
     * @param key the resource's key
     * @return what the thread's running transaction (active or marked rollback-only) holds under
     *     {@code key}, or {@code null}: nothing, no transaction, or one that ended (in its
     *     synchronizations' {@code afterCompletion}, where Narayana keeps it on the thread)
     */
    public Object resource(Object key) {
        TransactionSynchronizationRegistry transactions = registry();
        return running(status(transactions)) ? transactions.getResource(key) : null;
    }

    /**
     * Keeps a value with the thread's running transaction (active or marked rollback-only) until it
     * ends ({@code putResource}).
     *
     * @param key the resource's key
     * @param value the value
     * @return whether it was kept: not without a running transaction, nor where the transaction
     *     manager refused it
     */
    public boolean putResource(Object key, Object value) {
        TransactionSynchronizationRegistry transactions = registry();
        if (!running(status(transactions))) {
            return false;
        }
        try {
            transactions.putResource(key, value);
            return true;
        } catch (IllegalStateException e) {
            return false; // ended under the method (a timeout's reaper): nothing to remember
        }
    }

    private static boolean running(int status) {
        return status == Status.STATUS_ACTIVE || status == Status.STATUS_MARKED_ROLLBACK;
    }

    /** @return whether this thread's transaction is marked rollback-only (it will roll back, and has not yet) */
    public boolean markedRollbackOnly() {
        return status(registry()) == Status.STATUS_MARKED_ROLLBACK;
    }

    /**
     * @return whether a JTA transaction runs on this thread: active, or marked rollback-only (it
     *     still holds what it locked until it ends)
     */
    public boolean inTransaction() {
        return running(status(registry()));
    }

    /** @return whether a JTA transaction is active on this thread (and not marked rollback-only) */
    public boolean active() {
        return status(registry()) == Status.STATUS_ACTIVE;
    }

    /** @return the thread's transaction status; no transaction where there is no JTA */
    private static int status(TransactionSynchronizationRegistry transactions) {
        return transactions == null ? Status.STATUS_NO_TRANSACTION : transactions.getTransactionStatus();
    }

    private TransactionSynchronizationRegistry registry() {
        TransactionSynchronizationRegistry found = registry;
        if (found != null || absent || noRegistryOnThisThread.get() != null) {
            return found;
        }
        try {
            found = (TransactionSynchronizationRegistry) new InitialContext().lookup(REGISTRY);
            registry = found; // one registry serves every thread of the application, once found
        } catch (NoInitialContextException | NoClassDefFoundError e) {
            absent = true; // no JNDI at all (Weld SE, a plain JVM): claims end with the method
        } catch (NamingException | RuntimeException e) {
            // No java:comp on this thread (one the application started itself, not the server's),
            // or a container without transactions: no transaction here, and this thread does not
            // look again; another thread, a server's, does.
            noRegistryOnThisThread.set(Boolean.TRUE);
            return null;
        }
        return found;
    }
}
