package dev.idempotency.claim;

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
 * that doubles from {@value #FIRST_PAUSE_MILLIS} ms to {@value #LONGEST_PAUSE_MILLIS} ms. Each look
 * is a claim with the duplicate's own fingerprint, so one round trip answers all that can have
 * happened: the outcome was stored (a replay), the first request failed and gave the key back
 * (the duplicate acquires it and runs, as its retry would), or the lease ran out (a takeover, as
 * for any retry then).
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
    private final ConcurrentHashMap<String, Watch> watches = new ConcurrentHashMap<>();

    /**
     * @param maxWaiting how many duplicates may wait at once on this node
     */
    public InProgressWaits(int maxWaiting) {
        if (maxWaiting < 1) {
            throw new IllegalArgumentException("maxWaiting must be at least 1: " + maxWaiting);
        }
        this.slots = new Semaphore(maxWaiting);
    }

    /**
     * Waits, up to the policy's {@code maxWait}, until the claim that holds the key is no longer in
     * progress for this fingerprint. Returns at once, with {@code found}, when all waiting places
     * of this node are taken.
     *
     * @param store where the key lives
     * @param policy the endpoint's policy
     * @param key the scoped key
     * @param fingerprint the duplicate's fingerprint
     * @param found what the duplicate's own claim found: the key in progress, with its fingerprint
     * @param events where a store failure while waiting is reported
     * @param http whether the duplicate came through the HTTP contract
     * @return the last claim's answer: {@link ClaimResult.Acquired} when the key was given back or
     *     its lease ran out (the duplicate now owns it), else what it found; still in progress when
     *     the wait ran out, no place was free, the store failed or the thread was interrupted
     */
    public ClaimResult await(IdempotencyStore store, IdempotencyPolicy policy, String key, String fingerprint,
            ClaimResult.Existing found, EventPublisher events, boolean http) {
        if (!slots.tryAcquire()) {
            return found;
        }
        Watch watch = watches.compute(key, (k, existing) -> (existing == null ? new Watch() : existing).join());
        try {
            return lookUntilSettled(store, policy, key, fingerprint, found, watch, events, http);
        } finally {
            watches.computeIfPresent(key, (k, existing) -> existing.leave() ? null : existing);
            slots.release();
        }
    }

    private static ClaimResult lookUntilSettled(IdempotencyStore store, IdempotencyPolicy policy, String key,
            String fingerprint, ClaimResult.Existing found, Watch watch, EventPublisher events, boolean http) {
        long deadline = System.nanoTime() + policy.maxWait().toNanos();
        long pause = TimeUnit.MILLISECONDS.toNanos(FIRST_PAUSE_MILLIS);
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
            ClaimResult looked;
            try {
                looked = store.claim(key, fingerprint, policy.lease(), policy.ttl());
            } catch (RuntimeException e) {
                STORE_FAILURES.log(Level.SEVERE, Messages.storeFailedWhileWaiting(policy.endpoint()), e);
                events.fire(IdempotencyOutcome.STORE_FAILURE, policy, key, http);
                return current;
            }
            if (!(looked instanceof ClaimResult.Existing existing)
                    || RetryOutcomes.of(existing.record(), fingerprint) != IdempotencyOutcome.CONFLICT) {
                return looked;
            }
            current = existing;
            pause = Math.min(pause * 2, TimeUnit.MILLISECONDS.toNanos(LONGEST_PAUSE_MILLIS));
        }
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

    /** @return how many duplicates wait on this node now */
    public int waiting() {
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
