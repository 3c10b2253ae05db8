package dev.idempotency.jpa;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import javax.naming.InitialContext;
import javax.naming.NamingException;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;

import dev.idempotency.internal.TransactionGuard;
import dev.idempotency.spi.IdempotencyStoreException;

/**
 * The JPA store's transactions, with one rule: a transaction of the store's own never begins on
 * a thread whose caller's transaction is still open. There it runs on a thread of the store's
 * own, made by Jakarta Concurrency's default managed thread factory, and the caller waits for it.
 * The reason is Payara's: a {@code REQUIRES_NEW} begun while the caller's transaction holds flushed writes on a non-XA
 * pool (such as {@code jdbc/__default}) enlists the caller's connection, and its commit then
 * commits the caller's writes, which the caller's rollback can no longer undo. Without a
 * caller's transaction (the JAX-RS filter's claim, releases and completions after the commit)
 * the work runs on the calling thread. A completion run from the caller's {@code afterCompletion}
 * while the committed transaction is still on the thread (WildFly's Narayana) is work of its own
 * too, on such a thread; work that would join a transaction rolled back under it is refused.
 *
 * <p>The threads are the store's own, not the server's default managed executor: callers often
 * run on that executor themselves (message consumers, batch workers), and once all its threads
 * wait for store work queued behind them, nothing runs (WildFly's has only a few threads: four
 * on a two-core machine). The pool grows with the callers waiting and shrinks after a minute idle.
 */
@ApplicationScoped
public class SeparateRecordTransactions implements RecordTransactions {

    private static final String DEFAULT_THREAD_FACTORY = "java:comp/DefaultManagedThreadFactory";
    private static final long WAIT_SECONDS = 30;

    @Inject
    JtaRecordTransactions transactions;

    private final TransactionGuard caller = new TransactionGuard();
    private volatile ExecutorService executor;

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
        if (caller.committed()) {
            // A completion from the caller's afterCompletion, the committed transaction still on the
            // thread (Narayana): joining it would run the update outside any live transaction and keep
            // its row lock; the completion gets a transaction of its own.
            return inNewTransaction(work);
        }
        if (caller.rolledBack()) {
            // The caller's work was rolled back (a timeout): what would join it must not commit alone.
            throw new IdempotencyStoreException("the caller's transaction rolled back; nothing is recorded for it");
        }
        return transactions.inCallerTransaction(work);
    }

    /** Looked up, not injected: a {@code @Resource} in a library jar is not resolved the same way on every server. */
    private ExecutorService executor() {
        ExecutorService found = executor;
        if (found == null) {
            synchronized (this) {
                found = executor;
                if (found == null) {
                    ManagedThreadFactory threads;
                    try {
                        threads = (ManagedThreadFactory) new InitialContext().lookup(DEFAULT_THREAD_FACTORY);
                    } catch (NamingException e) {
                        throw new IdempotencyStoreException("the JPA store needs Jakarta Concurrency's "
                                + DEFAULT_THREAD_FACTORY + " to keep its transactions apart from the caller's", e);
                    }
                    found = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                            threads);
                    executor = found;
                }
            }
        }
        return found;
    }

    @PreDestroy
    void stop() {
        ExecutorService running = executor;
        if (running != null) {
            running.shutdownNow();
        }
    }
}
