package dev.idempotency.cdi;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;

import javax.naming.Context;
import javax.naming.NameNotFoundException;
import javax.naming.OperationNotSupportedException;
import javax.naming.spi.InitialContextFactory;

import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * An in-JVM stand-in for a server's JTA transactions, for unit tests: one transaction per thread,
 * begun and ended by the test (as a container's transaction interceptor would around the bean),
 * reached the way the library reaches the real one, through
 * {@code java:comp/TransactionSynchronizationRegistry}.
 */
public final class FakeJta implements TransactionSynchronizationRegistry {

    public static final FakeJta INSTANCE = new FakeJta();
    private static final String REGISTRY = "java:comp/TransactionSynchronizationRegistry";

    private static final class Transaction {
        int status = Status.STATUS_ACTIVE;
        final List<Synchronization> synchronizations = new ArrayList<>();
        final List<Synchronization> interposed = new ArrayList<>();
        final Map<Object, Object> resources = new HashMap<>();
    }

    private final ThreadLocal<Transaction> current = new ThreadLocal<>();
    /** Threads the application started itself: the server's naming (java:comp) is not there. */
    private static final ThreadLocal<Boolean> UNMANAGED = ThreadLocal.withInitial(() -> false);

    private FakeJta() {
    }

    /** Makes {@code new InitialContext()} find this registry (before the container starts). */
    public static void install() {
        System.setProperty(Context.INITIAL_CONTEXT_FACTORY, Factory.class.getName());
    }

    public static void uninstall() {
        System.clearProperty(Context.INITIAL_CONTEXT_FACTORY);
    }

    /** Drops this thread's transaction, if a failed test left one. */
    public void forget() {
        current.remove();
    }

    /** Makes this thread one without the server's naming, as a thread the application started itself. */
    static void unmanagedThread() {
        UNMANAGED.set(true);
    }

    public void begin() {
        if (current.get() != null) {
            throw new IllegalStateException("a transaction is on this thread already");
        }
        current.set(new Transaction());
    }

    /**
     * Commits, or rolls back if the transaction was marked rollback-only.
     *
     * @return whether it committed
     */
    public boolean commit() {
        Transaction transaction = transaction();
        if (transaction.status == Status.STATUS_MARKED_ROLLBACK) {
            rollback();
            return false;
        }
        try {
            // As the servers do: the synchronizations run while the transaction is still active,
            // and may mark it rollback-only, or throw, which rolls it back too.
            transaction.synchronizations.forEach(Synchronization::beforeCompletion);
            transaction.interposed.forEach(Synchronization::beforeCompletion);
        } catch (RuntimeException e) {
            rollback();
            return false;
        }
        if (transaction.status == Status.STATUS_MARKED_ROLLBACK) {
            rollback();
            return false;
        }
        end(transaction, Status.STATUS_COMMITTED);
        return true;
    }

    public void rollback() {
        end(transaction(), Status.STATUS_ROLLEDBACK);
    }

    /**
     * Attempts a commit whose outcome the transaction manager cannot tell (a heuristic hazard, a
     * resource that did not answer): the synchronizations are told {@code STATUS_UNKNOWN}.
     */
    void commitWithUnknownOutcome() {
        Transaction transaction = transaction();
        transaction.synchronizations.forEach(Synchronization::beforeCompletion);
        transaction.interposed.forEach(Synchronization::beforeCompletion);
        end(transaction, Status.STATUS_UNKNOWN);
    }

    /** Registers an effect of the business method, counted only if its transaction commits. */
    void onCommit(Runnable effect) {
        transaction().synchronizations.add(new Synchronization() {
            @Override
            public void beforeCompletion() {
            }

            @Override
            public void afterCompletion(int status) {
                if (status == Status.STATUS_COMMITTED) {
                    effect.run();
                }
            }
        });
    }

    /** Registers work run after the transaction rolled back (an {@code AFTER_FAILURE} observer), the transaction still on the thread. */
    void onRollback(Runnable work) {
        transaction().synchronizations.add(new Synchronization() {
            @Override
            public void beforeCompletion() {
            }

            @Override
            public void afterCompletion(int status) {
                if (status == Status.STATUS_ROLLEDBACK) {
                    work.run();
                }
            }
        });
    }

    /**
     * A transaction timeout's reaper rolls the transaction back (from its own thread) while this
     * thread still runs the method: the synchronizations are told, and the thread keeps the
     * rolled-back transaction until its method ends ({@link #forget()}).
     */
    void rollBackUnderTheMethod() {
        Transaction transaction = transaction();
        transaction.status = Status.STATUS_ROLLEDBACK;
        transaction.synchronizations.forEach(s -> s.afterCompletion(Status.STATUS_ROLLEDBACK));
        transaction.interposed.forEach(s -> s.afterCompletion(Status.STATUS_ROLLEDBACK));
    }

    private void end(Transaction transaction, int status) {
        transaction.status = status;
        try {
            transaction.synchronizations.forEach(s -> s.afterCompletion(status));
            transaction.interposed.forEach(s -> s.afterCompletion(status));
        } finally {
            current.remove();
        }
    }

    private Transaction transaction() {
        Transaction transaction = current.get();
        if (transaction == null) {
            throw new IllegalStateException("no transaction on this thread");
        }
        return transaction;
    }

    @Override
    public Object getTransactionKey() {
        return current.get();
    }

    @Override
    public void putResource(Object key, Object value) {
        transaction().resources.put(key, value);
    }

    @Override
    public Object getResource(Object key) {
        return transaction().resources.get(key);
    }

    @Override
    public void registerInterposedSynchronization(Synchronization synchronization) {
        Transaction transaction = transaction();
        if (transaction.status != Status.STATUS_ACTIVE && transaction.status != Status.STATUS_MARKED_ROLLBACK) {
            throw new IllegalStateException("transaction status " + transaction.status);
        }
        transaction.interposed.add(synchronization);
    }

    @Override
    public int getTransactionStatus() {
        Transaction transaction = current.get();
        return transaction == null ? Status.STATUS_NO_TRANSACTION : transaction.status;
    }

    @Override
    public void setRollbackOnly() {
        transaction().status = Status.STATUS_MARKED_ROLLBACK;
    }

    @Override
    public boolean getRollbackOnly() {
        return transaction().status == Status.STATUS_MARKED_ROLLBACK;
    }

    /** The JNDI context that holds nothing but the registry. */
    public static final class Factory implements InitialContextFactory {
        @Override
        public Context getInitialContext(Hashtable<?, ?> environment) {
            return (Context) Proxy.newProxyInstance(Factory.class.getClassLoader(), new Class<?>[] {Context.class},
                    (proxy, method, args) -> switch (method.getName()) {
                        case "lookup" -> {
                            if (REGISTRY.equals(String.valueOf(args[0])) && !UNMANAGED.get()) {
                                yield INSTANCE;
                            }
                            throw new NameNotFoundException(String.valueOf(args[0]));
                        }
                        case "close" -> null;
                        default -> throw new OperationNotSupportedException(method.getName());
                    });
        }
    }
}
