package dev.idempotency.claim;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.internal.Messages;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyStore;

/**
 * Gives claims back in the background when their release failed because the store did not
 * answer, until it answers: released, or no longer this owner's.
 *
 * <p>Why: a release follows work that did not commit. A store outside the caller's transaction
 * (Redis, Infinispan) marks the work executed just before the commit; when the mark reached the
 * store but its answer did not (the server died right after writing it), the work rolls back and
 * the release meets the same dead server. Left alone, the mark would answer every retry with
 * {@code 410 response-lost} until the ttl, for work that never happened; an in-progress claim
 * would answer {@code 409} until its lease ends. Every release here is owner-checked, so one that
 * comes late never frees a key that somebody else holds or whose work committed.
 *
 * <p>Only for stores that do not join the caller's transaction: their marks are the ones left
 * behind, and their clients (Lettuce, Hot Rod) work from any thread. A store that joins the
 * transaction (JPA) rolls its mark back with the work, and runs its own statements in the
 * container's transactions, which a library thread does not have; its failed release lapses with
 * the lease.
 *
 * <p>A key claimed again on this node while its release is pending does not wait for the next
 * try: the release is tried at once ({@link #claimedAgain}), so that a retry sent as soon as the
 * server is back runs, where it would otherwise be told {@code 409}, or {@code 410} once the
 * mark's lease ran out, until the pause (up to {@value #LONGEST_DELAY_MILLIS} ms) had passed. It
 * does not wait for a background try under way (that one decides), and the release is reported
 * on the library's thread. A retry that reaches another node, or a duplicate already waiting
 * ({@code inProgress = WAIT}), still meets the record until this node's next try.
 *
 * <p>Bounds: the first retry {@value #FIRST_DELAY_MILLIS} ms after the failure, then at twice the
 * pause, at most every {@value #LONGEST_DELAY_MILLIS} ms, until the record's retention
 * (the larger of lease and ttl) has run out (the store drops it then anyway); at most
 * {@value #MAX_PENDING} claims at once (beyond, a release is left to its lease, logged). One
 * daemon thread, started at the first retry; {@link #close} (the application stops) drops what is
 * pending, logged. A node that dies with retries pending leaves their keys as a crash does.
 */
public final class ReleaseRetries implements AutoCloseable {

    static final long FIRST_DELAY_MILLIS = 100;
    /**
     * How long a claim of the key waits for a background try under way: one that met the store
     * down a moment ago fails in a moment, and the claim then tries itself.
     */
    static final long WAIT_FOR_ATTEMPT_MILLIS = 100;
    static final long LONGEST_DELAY_MILLIS = 5_000;
    static final int MAX_PENDING = 10_000;

    private static final Logger LOG = Logger.getLogger(ReleaseRetries.class.getName());

    private final AtomicInteger pending = new AtomicInteger();
    /**
     * The releases pending, by scoped key: the newest of a key when two are (an owner's and that of
     * the request that took its key over, both failed); the other is still tried in the background.
     */
    private final Map<String, Retry> byKey = new ConcurrentHashMap<>();
    private ScheduledThreadPoolExecutor scheduler;
    private boolean closed;

    /** One claim to give back. */
    private final class Retry implements Runnable {
        private final IdempotencyStore store;
        private final IdempotencyPolicy policy;
        private final String key;
        private final String owner;
        private final Runnable released;
        private final long giveUpAt;
        private long delayMillis = FIRST_DELAY_MILLIS;
        private int attempts = 1;
        /** One attempt at a time. */
        private final ReentrantLock lock = new ReentrantLock();
        /** Set under the lock: released, no longer the owner's, or given up. */
        private boolean finished;
        /** The next scheduled try; set under the lock. */
        private ScheduledFuture<?> next;

        Retry(IdempotencyStore store, IdempotencyPolicy policy, String key, String owner, Runnable released) {
            this.store = store;
            this.policy = policy;
            this.key = key;
            this.owner = owner;
            this.released = released;
            Duration retention = policy.lease().compareTo(policy.ttl()) > 0 ? policy.lease() : policy.ttl();
            this.giveUpAt = System.nanoTime() + saturatedNanos(retention);
        }

        @Override
        public void run() {
            attempt(true);
        }

        /**
         * Tries the release once; one attempt at a time, none once finished.
         *
         * @param scheduled whether the scheduler runs it (it schedules the next try after a
         *     failure); {@code false}: the key is claimed again, and waits for an attempt under way
         *     for {@value ReleaseRetries#WAIT_FOR_ATTEMPT_MILLIS} ms at most (it may be about to fail: the store was
         *     down a moment ago, and is back for this one), and does not change the next scheduled
         *     try when it fails
         * @return whether the store released it now
         */
        boolean attempt(boolean scheduled) {
            if (scheduled) {
                lock.lock();
            } else if (!tryLockForClaim()) {
                return false;
            }
            try {
                return !finished && attemptLocked(scheduled);
            } finally {
                lock.unlock();
            }
        }

        private boolean tryLockForClaim() {
            try {
                return lock.tryLock(WAIT_FOR_ATTEMPT_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        private boolean attemptLocked(boolean scheduled) {
            attempts++;
            boolean gone;
            try {
                gone = store.release(key, owner);
            } catch (RuntimeException | LinkageError e) { // LinkageError: the application went away meanwhile
                if (!scheduled) {
                    return false;
                }
                if (System.nanoTime() - giveUpAt >= 0) {
                    finish();
                    LOG.log(Level.SEVERE, Messages.releaseRetriesGaveUp(policy.endpoint(), ScopedKey.forLog(key), attempts), e);
                } else {
                    delayMillis = Math.min(LONGEST_DELAY_MILLIS, delayMillis * 2);
                    if (!schedule(this, delayMillis)) {
                        finish(); // closed meanwhile: counted as left by close()
                    }
                }
                return false;
            }
            finish();
            LOG.info(Messages.releasedOnRetry(policy.endpoint(), ScopedKey.forLog(key), attempts, gone));
            if (gone) {
                // Wakes waiting duplicates, reports the release (listeners' failures are caught there);
                // on the library's thread, never inside a transaction of the caller that claimed again.
                if (scheduled || !schedule(released)) {
                    released.run();
                }
            }
            return gone;
        }

        private void finish() {
            finished = true;
            byKey.remove(key, this);
            if (next != null) {
                next.cancel(false); // when the key was claimed again: the scheduled try is not needed
            }
            done();
        }
    }

    /** One claim less to give back (never below zero: {@link #close} forgets those still pending). */
    private void done() {
        pending.updateAndGet(count -> Math.max(0, count - 1));
    }

    /**
     * Gives a claim back in the background, after its release just failed.
     *
     * @param store where the claim lives
     * @param policy the method's policy
     * @param key the scoped key
     * @param owner the owner token
     * @param released what to do once the store released it (not when it answers that the claim is
     *     no longer this owner's)
     * @return whether it will be tried again; {@code false} when the store joins the caller's
     *     transaction, too many are pending, or the application is stopping
     */
    public boolean retry(IdempotencyStore store, IdempotencyPolicy policy, String key, String owner, Runnable released) {
        if (store.joinsCallerTransaction()) {
            return false;
        }
        if (pending.incrementAndGet() > MAX_PENDING) {
            pending.decrementAndGet();
            LOG.warning(Messages.releaseRetriesFull(policy.endpoint(), ScopedKey.forLog(key), MAX_PENDING));
            return false;
        }
        Retry retry = new Retry(store, policy, key, owner, released);
        retry.lock.lock(); // its next is set before a claim of its key or its first attempt can finish it
        try {
            byKey.put(key, retry);
            if (!schedule(retry, FIRST_DELAY_MILLIS)) {
                byKey.remove(key, retry);
                pending.decrementAndGet();
                return false;
            }
        } finally {
            retry.lock.unlock();
        }
        return true;
    }

    /**
     * Tries a key's pending release at once when the key was claimed again on this node and found
     * held, and claims it once more if that gave it back: a retry sent as soon as the store is back
     * runs instead of meeting the record until the next try. Costs a read of a counter when no
     * release is pending.
     *
     * @param store the store the claim was made in
     * @param policy the method's policy
     * @param key the scoped key
     * @param fingerprint the request's fingerprint
     * @param claim what the claim answered
     * @return the claim's answer, or that of the claim made again
     */
    public ClaimResult claimedAgain(IdempotencyStore store, IdempotencyPolicy policy, String key, String fingerprint,
            ClaimResult claim) {
        if (!(claim instanceof ClaimResult.Existing) || pending.get() == 0) {
            return claim;
        }
        Retry retry = byKey.get(key);
        if (retry == null || !retry.attempt(false)) {
            return claim;
        }
        return store.claim(key, fingerprint, policy.lease(), policy.ttl());
    }

    /** @return how many claims wait to be given back */
    public int pending() {
        return pending.get();
    }

    /** @return whether the task runs on the retries' thread (not once closed) */
    private synchronized boolean schedule(Runnable task) {
        if (closed || scheduler == null) {
            return false;
        }
        scheduler.execute(task);
        return true;
    }

    /** Schedules a try; called holding the retry's lock. */
    private synchronized boolean schedule(Retry retry, long delayMillis) {
        if (closed) {
            return false;
        }
        if (scheduler == null) {
            scheduler = new ScheduledThreadPoolExecutor(1, task -> {
                Thread thread = new Thread(task, "idempotency-release-retries");
                thread.setDaemon(true);
                // the application's classes, whatever thread made the first retry
                thread.setContextClassLoader(ReleaseRetries.class.getClassLoader());
                return thread;
            });
            scheduler.setRemoveOnCancelPolicy(true);
        }
        retry.next = scheduler.schedule(retry, delayMillis, TimeUnit.MILLISECONDS);
        return true;
    }

    /**
     * Stops retrying (the application stops): waits up to a second for an attempt under way, then
     * logs what is still pending, which is left to its lease. Called before the application's beans
     * are destroyed, so that no attempt reaches a store being closed.
     */
    @Override
    public void close() {
        ScheduledThreadPoolExecutor running;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            running = scheduler;
        }
        if (running != null) {
            running.shutdownNow();
            try {
                running.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        byKey.clear();
        int left = pending.getAndSet(0);
        if (left > 0) {
            LOG.warning(Messages.releaseRetriesDropped(left));
        }
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 2;
        }
    }
}
