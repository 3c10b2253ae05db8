package dev.idempotency.claim;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

import dev.idempotency.IdempotencyOutcome;
import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.internal.Messages;
import dev.idempotency.internal.ThrottledLog;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;

/**
 * Where duplicates of a request still running wait for its outcome
 * ({@code @Idempotent(inProgress = WAIT)}), at most {@code idempotency.in-progress.max-waiting} at
 * a time on this node, each for at most its endpoint's {@code maxWait}.
 *
 * <p>A waiting duplicate holds its thread, but no store connection and no CPU: between two looks
 * at the store it sleeps, and is woken early when a claim of its key is completed or released on
 * this node ({@link #settled}), which is every claim of the in-memory store and, for the other
 * stores, the claims this node owns. For an owner on another node it looks again after a back-off
 * that doubles from {@value #FIRST_PAUSE_MILLIS} ms to {@value #LONGEST_PAUSE_MILLIS} ms.
 *
 * <p>A look is a read ({@link IdempotencyStore#find}): a waiting duplicate never takes a key over,
 * even once the first request's lease ran out (a slow owner keeps its claim; the duplicate's
 * wait ends in the {@code 409}, and only a later retry may take the key over, as without
 * waiting). Only when the key is gone (the first request failed and gave it back) does the
 * duplicate claim it, and then runs, as its retry would.
 *
 * <p>Not every store can notify: a store-side notification (Redis keyspace events, Hot Rod client
 * listeners) would save the looks for owners on other nodes, but each needs a server setting or a
 * connection of its own and can miss an event on a reconnect, so the looks would stay as the
 * backstop. The back-off keeps them to about four per second per waiting duplicate.
 */
public final class InProgressWaits {

    static final long FIRST_PAUSE_MILLIS = 10;
    static final long LONGEST_PAUSE_MILLIS = 250;

    private static final Logger LOG = Logger.getLogger(InProgressWaits.class.getName());
    /** A store that is down fails every waiting duplicate's look: one record per 10 s. */
    private static final ThrottledLog STORE_FAILURES = new ThrottledLog(LOG, 10, System::nanoTime);

    private final Semaphore slots;
    private final long firstPauseNanos;
    private final long longestPauseNanos;
    private final ConcurrentHashMap<String, Watch> watches = new ConcurrentHashMap<>();
    /** Set when the application stops ({@link #close}). */
    private volatile boolean closed;

    /**
     * @param maxWaiting how many duplicates may wait at once on this node
     */
    public InProgressWaits(int maxWaiting) {
        this(maxWaiting, Duration.ofMillis(FIRST_PAUSE_MILLIS), Duration.ofMillis(LONGEST_PAUSE_MILLIS));
    }

    /**
     * @param maxWaiting how many duplicates may wait at once on this node
     * @param firstPause the first back-off between two looks
     * @param longestPause the longest back-off between two looks
     */
    InProgressWaits(int maxWaiting, Duration firstPause, Duration longestPause) {
        if (maxWaiting < 1) {
            throw new IllegalArgumentException("maxWaiting must be at least 1: " + maxWaiting);
        }
        this.slots = new Semaphore(maxWaiting);
        this.firstPauseNanos = firstPause.toNanos();
        this.longestPauseNanos = longestPause.toNanos();
    }

    /**
     * What a claim's answer becomes where the policy waits ({@code inProgress = WAIT}): the key
     * held in progress for this fingerprint is waited for ({@link #await}); any other answer, or
     * any answer where the policy does not wait, is returned as it is.
     *
     * @param store where the key lives
     * @param policy the endpoint's policy
     * @param key the scoped key
     * @param fingerprint the duplicate's fingerprint
     * @param claim what the duplicate's own claim answered
     * @return the answer to act on
     */
    public ClaimResult afterClaim(IdempotencyStore store, IdempotencyPolicy policy, String key, String fingerprint,
            ClaimResult claim) {
        if (claim instanceof ClaimResult.Existing found && policy.waitsForInProgress()
                && RetryOutcomes.of(found.record(), fingerprint) == IdempotencyOutcome.CONFLICT) {
            return await(store, policy, key, fingerprint, found);
        }
        return claim;
    }

    /**
     * Waits, up to the policy's {@code maxWait}, until the claim that holds the key is no longer in
     * progress for this fingerprint. Returns at once, with {@code found}, when all waiting places
     * of this node are taken. Store failures while waiting are logged ({@code IDEMP0410}) and end
     * the wait with what was last found.
     *
     * @param store where the key lives
     * @param policy the endpoint's policy
     * @param key the scoped key
     * @param fingerprint the duplicate's fingerprint
     * @param found what the duplicate's own claim found: the key in progress, with its fingerprint
     * @return {@link ClaimResult.Acquired} when the key was given back and the duplicate claimed it,
     *     else the record last found: settled (completed, lost, or claimed again by another
     *     request), or still in progress when the wait ran out, no place was free, the store
     *     failed or the thread was interrupted
     */
    public ClaimResult await(IdempotencyStore store, IdempotencyPolicy policy, String key, String fingerprint,
            ClaimResult.Existing found) {
        if (closed || !slots.tryAcquire()) {
            return found;
        }
        try {
            Watch watch = watches.compute(key, (k, existing) -> (existing == null ? new Watch() : existing).join());
            try {
                return lookUntilSettled(store, policy, key, fingerprint, found, watch);
            } finally {
                watches.computeIfPresent(key, (k, existing) -> existing.leave() ? null : existing);
            }
        } finally {
            slots.release();
        }
    }

    private ClaimResult lookUntilSettled(IdempotencyStore store, IdempotencyPolicy policy, String key,
            String fingerprint, ClaimResult.Existing found, Watch watch) {
        long deadline = System.nanoTime() + policy.maxWait().toNanos();
        long pause = firstPauseNanos;
        ClaimResult.Existing current = found;
        long seen = watch.generation();
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return current;
            }
            try {
                seen = watch.awaitChange(seen, Math.min(pause, left));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the server is stopping the request: answer it now
                return current;
            }
            if (closed) {
                return current; // the application stops: its store may be gone
            }
            ClaimResult looked;
            try {
                looked = look(store, policy, key, fingerprint);
            } catch (RuntimeException | LinkageError e) { // LinkageError: the application went away meanwhile
                STORE_FAILURES.log(Level.SEVERE, Messages.storeFailedWhileWaiting(policy.endpoint()), e);
                return current;
            }
            if (!(looked instanceof ClaimResult.Existing existing)
                    || RetryOutcomes.of(existing.record(), fingerprint) != IdempotencyOutcome.CONFLICT) {
                return looked;
            }
            current = existing;
            pause = Math.min(pause * 2, longestPauseNanos);
        }
    }

    /** Reads the record; claims the key only when it is gone (given back, or its retention ran out). */
    private static ClaimResult look(IdempotencyStore store, IdempotencyPolicy policy, String key, String fingerprint) {
        Optional<IdempotencyRecord> record = store.find(key);
        if (record.isPresent()) {
            return new ClaimResult.Existing(record.get());
        }
        return store.claim(key, fingerprint, policy.lease(), policy.ttl());
    }

    /**
     * Wakes the duplicates waiting on this node for a key whose claim was just completed or
     * released. Costs a map look-up when nobody waits.
     *
     * @param key the scoped key
     */
    public void settled(String key) {
        if (watches.isEmpty()) {
            return;
        }
        Watch watch = watches.get(key);
        if (watch != null) {
            watch.signal();
        }
    }

    /**
     * The application stops, before its beans (the store) are destroyed: the duplicates waiting now
     * end at once with what they last found (the {@code 409} or conflict they would have had), and
     * later ones do not wait. Without it they slept on, up to their {@code maxWait}, holding up the
     * undeployment, then looked at a store that may be gone. Closing twice does nothing.
     */
    public void close() {
        closed = true;
        for (Watch watch : watches.values()) {
            watch.signal();
        }
    }

    /** @return for how many keys duplicates wait on this node now */
    int watchedKeys() {
        return watches.size();
    }

    /** @return how many duplicates wait on this node now */
    int waiting() {
        int waiting = 0;
        for (Watch watch : watches.values()) {
            waiting += watch.waiters();
        }
        return waiting;
    }

    /** The duplicates waiting for one key: a generation that each end of a claim moves on. */
    private static final class Watch {
        private int waiters;
        private long generation;

        /** Under the map's lock for the key. */
        Watch join() {
            synchronized (this) {
                waiters++;
            }
            return this;
        }

        /** Under the map's lock for the key. @return whether nobody waits any more */
        boolean leave() {
            synchronized (this) {
                return --waiters == 0;
            }
        }

        synchronized int waiters() {
            return waiters;
        }

        synchronized long generation() {
            return generation;
        }

        synchronized void signal() {
            generation++;
            notifyAll();
        }

        /**
         * Sleeps until the generation moves past {@code seen} or the time is up; an end of the claim
         * that came before this call (after the last look) is not missed, since it moved the
         * generation.
         *
         * @return the generation now
         */
        synchronized long awaitChange(long seen, long nanos) throws InterruptedException {
            long until = System.nanoTime() + nanos;
            long left = nanos;
            while (generation == seen && left > 0) {
                TimeUnit.NANOSECONDS.timedWait(this, left);
                left = until - System.nanoTime();
            }
            return generation;
        }
    }
}
