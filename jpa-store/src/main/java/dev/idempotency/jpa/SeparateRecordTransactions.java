package dev.idempotency.jpa;

import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;

import org.eclipse.microprofile.config.ConfigProvider;

import dev.idempotency.exceptions.IdempotencyDefinitionException;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.support.ConfigLookup;
import dev.idempotency.spi.support.TransactionGuard;

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
 *
 * <p><b>Bounded.</b> At most {@code idempotency.jpa.max-own-transactions} (default
 * {@value #DEFAULT_MAX_OWN_TRANSACTIONS}) such transactions run at once. Each needs a second
 * connection of the datasource while its caller's transaction holds one, so the datasource's pool
 * should have at least as many connections as the threads that call the store inside a
 * transaction, plus this bound: a smaller pool runs dry under load, and then every caller waits
 * for a connection nobody returns. Past the bound a claim is refused at once
 * ({@code IDEMP0511}, an {@link IdempotencyStoreException}: the library answers {@code 503}),
 * never queued; the completion of work whose transaction committed waits for a free one instead,
 * up to 30 s, since refused its result would be lost. A bad value fails the deployment ({@code IDEMP0510}).
 */
@ApplicationScoped
public class SeparateRecordTransactions implements RecordTransactions {

    private static final String DEFAULT_THREAD_FACTORY = "java:comp/DefaultManagedThreadFactory";
    private static final long WAIT_SECONDS = 30;

    static final String MAX_OWN_TRANSACTIONS = "idempotency.jpa.max-own-transactions";
    static final int DEFAULT_MAX_OWN_TRANSACTIONS = 16;
    private static final int LARGEST_MAX_OWN_TRANSACTIONS = 1_000;

    @Inject
    JtaRecordTransactions transactions;

    private final TransactionGuard caller = new TransactionGuard();
    private volatile ExecutorService executor;
    private volatile int maxOwnTransactions;
    /** One for each own transaction submitted and not yet run to its end. */
    private volatile Semaphore running;

    private RecordTransactions delegate;
    private BooleanSupplier callerPresent = caller::present;
    /** Positively no caller's transaction: "cannot tell" (no registry on this thread) is not enough. */
    private BooleanSupplier callerKnownAbsent = caller::knownAbsent;
    private ThreadFactory threads;
    /**
     * Whether the caller's transaction on this thread ended without rolling back (its
     * {@code afterCompletion}: committed, or an outcome nobody can tell); a field for tests.
     */
    volatile BooleanSupplier callerEnded = caller::endedWithoutRollback;
    /** Whether the caller's transaction on this thread rolled back; a field for tests. */
    volatile BooleanSupplier callerRolledBack = caller::rolledBack;

    /** For CDI. */
    public SeparateRecordTransactions() {
    }

    /**
     * For tests outside a container.
     *
     * @param work where the store's transactions run
     * @param callerPresent whether the calling thread's transaction is open
     * @param threads makes the store's own threads
     * @param maxOwnTransactions the most transactions of the store's own running at once
     */
    SeparateRecordTransactions(RecordTransactions work, BooleanSupplier callerPresent, ThreadFactory threads,
            int maxOwnTransactions) {
        this.delegate = work;
        this.callerPresent = callerPresent;
        this.callerKnownAbsent = () -> !callerPresent.getAsBoolean();
        this.threads = threads;
        this.maxOwnTransactions = maxOwnTransactions;
    }

    /** Reads and validates the bound when the application starts: a bad value fails the deployment. */
    void validate(@Observes @Initialized(ApplicationScoped.class) Object started) {
        maxOwnTransactions = maxOwnTransactions(ConfigLookup.of(ConfigProvider.getConfig()));
    }

    /**
     * @param config where the setting is read
     * @return {@code idempotency.jpa.max-own-transactions}, validated
     * @throws IdempotencyDefinitionException ({@code IDEMP0510}) naming the key, the value and what is allowed
     */
    static int maxOwnTransactions(ConfigLookup config) {
        String raw = config.get(MAX_OWN_TRANSACTIONS).map(String::trim).orElse(String.valueOf(DEFAULT_MAX_OWN_TRANSACTIONS));
        int value;
        try {
            value = Integer.parseInt(raw);
        } catch (NumberFormatException e) {
            value = -1;
        }
        if (value < 1 || value > LARGEST_MAX_OWN_TRANSACTIONS) {
            throw new IdempotencyDefinitionException(
                    JpaMessages.invalidMaxOwnTransactions(MAX_OWN_TRANSACTIONS, raw, LARGEST_MAX_OWN_TRANSACTIONS));
        }
        return value;
    }

    private RecordTransactions delegate() {
        return delegate != null ? delegate : transactions;
    }

    @Override
    public <T> T inNewTransaction(Function<EntityManager, T> work) {
        return onOwnThread(work, false);
    }

    /**
     * @param waitForPermit whether to wait for a free transaction (up to {@value #WAIT_SECONDS} s)
     *     rather than be refused at once
     */
    private <T> T onOwnThread(Function<EntityManager, T> work, boolean waitForPermit) {
        if (!callerPresent.getAsBoolean()) {
            return delegate().inNewTransaction(work);
        }
        ExecutorService pool = executor();
        if (!permit(waitForPermit)) {
            throw new OwnTransactionsExhausted(maxOwnTransactions);
        }
        Slot<T> slot = new Slot<>(running, () -> delegate().inNewTransaction(work));
        Future<T> result;
        try {
            result = pool.submit(slot);
        } catch (RejectedExecutionException e) {
            slot.release();
            throw new IdempotencyStoreException("the store's threads are stopped (the application is stopping)", e);
        }
        try {
            // Bounded: the caller's transaction may hold a lock the store's statement waits for
            // (the same key claimed twice in one transaction); a hang would hide that.
            return result.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            cancel(result, slot);
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
            cancel(result, slot);
            throw new IdempotencyStoreException("interrupted while the store's transaction ran", e);
        }
    }

    /**
     * A permit for one transaction of the store's own: at once, or refused; or, for the completion of
     * work whose transaction committed (from its {@code afterCompletion}), waited for up to
     * {@value #WAIT_SECONDS} s: refused, the result of work that committed would never be stored.
     */
    private boolean permit(boolean wait) {
        if (running.tryAcquire()) {
            return true;
        }
        if (!wait) {
            return false;
        }
        try {
            return running.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IdempotencyStoreException("interrupted while waiting for one of the store's own transactions", e);
        }
    }

    @Override
    public <T> T inCallerTransaction(Function<EntityManager, T> work) {
        if (callerEnded.getAsBoolean()) {
            // A completion from the caller's afterCompletion, the committed transaction still on the
            // thread (Narayana): joining it would run the update outside any live transaction and keep
            // its row lock; the completion gets a transaction of its own, waited for. So does the
            // mark of work whose transaction's outcome is unknown (it may have committed).
            return onOwnThread(work, true);
        }
        if (callerRolledBack.getAsBoolean()) {
            if (TransactionGuard.inCallAfterItsTransaction()) {
                // A call made after its transaction rolled back (an AFTER_FAILURE observer): its work
                // ran outside that transaction and counts, so it is recorded in one of the store's own.
                return onOwnThread(work, true);
            }
            // The caller's work was rolled back (a timeout): what would join it must not commit alone.
            throw new IdempotencyStoreException("the caller's transaction rolled back; nothing is recorded for it");
        }
        return delegate().inCallerTransaction(work);
    }

    /**
     * @return the store's datasource on a thread known to have no transaction, where the pool
     *     hands out a connection of its own, unenlisted; else empty (a caller's transaction, or a
     *     thread where that cannot be told), so that the work keeps to the rule above and a
     *     statement never commits apart from a transaction it belongs to
     */
    @Override
    public Optional<DataSource> autoCommitDataSource() {
        return callerKnownAbsent.getAsBoolean() ? delegate().autoCommitDataSource() : Optional.empty();
    }

    /** A task cancelled before it started never returns its permit itself. */
    private static void cancel(Future<?> result, Slot<?> slot) {
        result.cancel(true);
        if (!slot.started) {
            slot.release();
        }
    }

    /** An own transaction holding one permit, returned when it ends (before its caller hears of it). */
    private static final class Slot<T> implements Callable<T> {

        private final Semaphore permits;
        private final Callable<T> work;
        private final AtomicBoolean released = new AtomicBoolean();
        volatile boolean started;

        Slot(Semaphore permits, Callable<T> work) {
            this.permits = permits;
            this.work = work;
        }

        @Override
        public T call() throws Exception {
            started = true;
            try {
                return work.call();
            } finally {
                release();
            }
        }

        void release() {
            if (released.compareAndSet(false, true)) {
                permits.release();
            }
        }
    }

    /** Looked up, not injected: a {@code @Resource} in a library jar is not resolved the same way on every server. */
    private ExecutorService executor() {
        ExecutorService found = executor;
        if (found == null) {
            synchronized (this) {
                found = executor;
                if (found == null) {
                    int max = maxOwnTransactions > 0 ? maxOwnTransactions
                            : maxOwnTransactions(ConfigLookup.of(ConfigProvider.getConfig()));
                    maxOwnTransactions = max;
                    Semaphore permits = new Semaphore(max);
                    // max threads at most, as many as the permits: a task waits in the queue only while a
                    // thread passes from the task before it to this one
                    ThreadPoolExecutor pool = new ThreadPoolExecutor(max, max, 60, TimeUnit.SECONDS,
                            new LinkedBlockingQueue<>(), threads());
                    pool.allowCoreThreadTimeOut(true);
                    running = permits;
                    found = pool;
                    executor = found;
                }
            }
        }
        return found;
    }

    private ThreadFactory threads() {
        if (threads != null) {
            return threads;
        }
        try {
            return (ManagedThreadFactory) new InitialContext().lookup(DEFAULT_THREAD_FACTORY);
        } catch (NamingException e) {
            throw new IdempotencyStoreException("the JPA store needs Jakarta Concurrency's "
                    + DEFAULT_THREAD_FACTORY + " to keep its transactions apart from the caller's", e);
        }
    }

    @PreDestroy
    void stop() {
        ExecutorService running = executor;
        if (running != null) {
            running.shutdownNow();
        }
    }
}
