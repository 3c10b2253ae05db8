package dev.idempotency.internal;

import java.util.function.Consumer;

import javax.naming.InitialContext;
import javax.naming.NamingException;

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

    private volatile TransactionSynchronizationRegistry registry;
    private volatile boolean absent;

    /**
     * @param onEnd called after the transaction ended, with {@code true} if it committed
     * @return {@code true} if a transaction is active and {@code onEnd} will be called when it
     *     ends; {@code false} if there is none (then the caller ends the claim itself)
     */
    public boolean whenTransactionEnds(Consumer<Boolean> onEnd) {
        TransactionSynchronizationRegistry transactions = registry();
        int status = transactions == null ? Status.STATUS_NO_TRANSACTION : transactions.getTransactionStatus();
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
                    onEnd.accept(status == Status.STATUS_COMMITTED);
                }
            });
        } catch (IllegalStateException refused) {
            if (status != Status.STATUS_MARKED_ROLLBACK) {
                throw refused;
            }
            // Narayana (WildFly) takes no synchronization on a rollback-only transaction (ARJUNA016083),
            // where Payara's and Liberty's managers do: its end is already decided, a rollback.
            onEnd.accept(false);
        }
        return true;
    }

    /** Marks the thread's transaction, if any, rollback-only: it must not commit, whoever catches what. */
    public void setRollbackOnly() {
        TransactionSynchronizationRegistry transactions = registry();
        if (transactions != null && transactions.getTransactionStatus() == Status.STATUS_ACTIVE) {
            transactions.setRollbackOnly();
        }
    }

    /** @return whether a JTA transaction is associated with this thread, in whatever state */
    public boolean present() {
        TransactionSynchronizationRegistry transactions = registry();
        return transactions != null && transactions.getTransactionStatus() != Status.STATUS_NO_TRANSACTION;
    }

    /**
     * @return whether this thread is associated with a JTA transaction that takes no more work: it
     *     is committing or has ended. Narayana (WildFly) runs a synchronization's
     *     {@code afterCompletion} with the ended transaction still on the thread, where
     *     {@code REQUIRED} would join it instead of beginning a new one.
     */
    public boolean ended() {
        TransactionSynchronizationRegistry transactions = registry();
        if (transactions == null) {
            return false;
        }
        int status = transactions.getTransactionStatus();
        return status != Status.STATUS_NO_TRANSACTION && status != Status.STATUS_ACTIVE
                && status != Status.STATUS_MARKED_ROLLBACK;
    }

    /** @return whether a JTA transaction is active on this thread (and not marked rollback-only) */
    public boolean active() {
        TransactionSynchronizationRegistry transactions = registry();
        return transactions != null && transactions.getTransactionStatus() == Status.STATUS_ACTIVE;
    }

    private TransactionSynchronizationRegistry registry() {
        TransactionSynchronizationRegistry found = registry;
        if (found != null || absent) {
            return found;
        }
        try {
            found = (TransactionSynchronizationRegistry) new InitialContext().lookup(REGISTRY);
            registry = found;
        } catch (NamingException | RuntimeException | NoClassDefFoundError e) {
            absent = true; // no JTA here (Weld SE, a servlet container): claims end with the method
        }
        return found;
    }
}
