package dev.idempotency.jpa;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import javax.naming.InitialContext;
import javax.naming.NamingException;

import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;

import dev.idempotency.internal.TransactionGuard;
import dev.idempotency.spi.IdempotencyStoreException;

/**
 * The JPA store's transactions, with one rule: a transaction of the store's own never begins on
 * a thread whose caller's transaction is still open. There it runs on Jakarta Concurrency's
 * default managed executor, and the caller waits for it. The reason is Payara's: a
 * {@code REQUIRES_NEW} begun while the caller's transaction holds flushed writes on a non-XA
 * pool (such as {@code jdbc/__default}) enlists the caller's connection, and its commit then
 * commits the caller's writes, which the caller's rollback can no longer undo. Without a
 * caller's transaction (the JAX-RS filter's claim, releases and completions after the commit)
 * the work runs on the calling thread.
 */
@ApplicationScoped
public class SeparateRecordTransactions implements RecordTransactions {

    private static final String DEFAULT_EXECUTOR = "java:comp/DefaultManagedExecutorService";
    private static final long WAIT_SECONDS = 30;

    @Inject
    JtaRecordTransactions transactions;

    private final TransactionGuard caller = new TransactionGuard();
    private volatile ManagedExecutorService executor;

    @Override
    public <T> T inNewTransaction(Function<EntityManager, T> work) {
        if (!caller.present()) {
            return transactions.inNewTransaction(work);
        }
        Future<T> result = executor().submit(() -> transactions.inNewTransaction(work));
        try {
            // Bounded: the caller's transaction may hold a lock the store's statement waits for
            // (the same key claimed twice in one transaction); a hang would hide that.
            return result.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            result.cancel(true);
            throw new IdempotencyStoreException("the store's transaction did not finish within " + WAIT_SECONDS
                    + " s (waiting for a lock the caller's own transaction holds?)", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw new IdempotencyStoreException("the store's transaction failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            result.cancel(true);
            throw new IdempotencyStoreException("interrupted while the store's transaction ran", e);
        }
    }

    @Override
    public <T> T inCallerTransaction(Function<EntityManager, T> work) {
        return transactions.inCallerTransaction(work);
    }

    /** Looked up, not injected: a {@code @Resource} in a library jar is not resolved the same way on every server. */
    private ManagedExecutorService executor() {
        ManagedExecutorService found = executor;
        if (found == null) {
            try {
                found = (ManagedExecutorService) new InitialContext().lookup(DEFAULT_EXECUTOR);
            } catch (NamingException e) {
                throw new IdempotencyStoreException("the JPA store needs Jakarta Concurrency's " + DEFAULT_EXECUTOR
                        + " to keep its transactions apart from the caller's", e);
            }
            executor = found;
        }
        return found;
    }
}
