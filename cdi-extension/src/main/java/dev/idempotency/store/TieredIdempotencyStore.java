package dev.idempotency.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

import dev.idempotency.internal.Messages;
import dev.idempotency.internal.ThrottledLog;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.RecordDetails;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.spi.support.TransactionGuard;

/**
 * The seeds' three layers, the first two of them: a fast store in front (Infinispan) that answers
 * duplicates and replays without touching the database, and a durable store behind it (JPA)
 * that decides every claim and joins the business transaction. (The third layer, the state
 * machine, is {@code dev.idempotency.state}.)
 *
 * <ul>
 * <li><b>claim</b>: the front first. The same request's record there (in progress, or completed)
 * answers at once: the storm of duplicates never reaches the database. Else (no record, another
 * request's record, or an outcome the front counts as lost) the back decides; its answer is the
 * answer. When the back holds the key, the front's fresh claim is turned into a short-lived copy
 * of a completed record (retained for the lease) or given back.</li>
 * <li><b>markExecuted</b>: the back, inside the business transaction; then the front, retained for
 * the lease only, so that the front never holds for long a state the back did not confirm.</li>
 * <li><b>complete</b>: the back (its result is the result), then the front's copy: at once, or,
 * when the back joined the caller's transaction, once that committed, kept for what is left of
 * the retention the back counts from the completion.</li>
 * <li><b>release</b>: the back, then the front.</li>
 * </ul>
 *
 * <p>When the front fails (its server is down, a timeout), the failure is logged, the front is
 * left alone for a pause ({@code idempotency.tiered.front-pause}) and every call runs on the back
 * alone: no {@code 503}, and no second execution, since the back decides every claim. The front's
 * own claims whose release or copy was skipped during the pause, or failed (up to
 * {@value #MAX_MISSED} keys, every owner of each), are given back once the front is in use again:
 * at the next claim of their key, and, {@value #MISSED_PER_CALL} keys at a time, by every claim and
 * read of this node after the pause, so that a retry on another node (whose front answers alone) is
 * not told {@code 409} by a claim the back has ended. What the front may get wrong otherwise is
 * bounded by the lease: a claim it still shows as in progress after the back released or completed
 * it (more were missed, or this node stopped before giving them back) answers {@code 409} until the
 * lease lapses.
 */
public final class TieredIdempotencyStore implements IdempotencyStore {

    private static final Logger LOG = Logger.getLogger(TieredIdempotencyStore.class.getName());
    private static final ThrottledLog FRONT_FAILURES = new ThrottledLog(LOG, 10, System::nanoTime);

    private final IdempotencyStore front;
    private final IdempotencyStore back;
    private final long pauseNanos;
    private final LongSupplier nanoClock;
    private final TransactionGuard transactions;
    /** When the front may be tried again, on the nano clock; {@link #IN_USE} while it is in use. */
    private final AtomicLong frontPausedUntil = new AtomicLong(IN_USE);

    private static final long IN_USE = Long.MIN_VALUE;

    /** The most keys whose front claims' update a pause skipped that are remembered to be given back. */
    static final int MAX_MISSED = 10_000;
    /** How many other keys' skipped front claims a claim or a read gives back besides its own key's. */
    static final int MISSED_PER_CALL = 16;

    /**
     * Front claims whose release or copy was skipped while the front was paused (or failed), by
     * key, every owner of each (a slow owner and the retry that took its key over): given back at
     * the key's next claim, or by any call after the pause (an owner the front no longer knows,
     * after its lease, changes nothing there).
     */
    private final Map<String, Missed> missed = new ConcurrentHashMap<>();
    /** The longest lease claimed through this store: a front claim older than that answers nothing alone. */
    private final AtomicLong longestLeaseNanos = new AtomicLong();

    /** A key's front claims whose update was skipped: their owner tokens, and when the last was (on the nano clock). */
    private record Missed(List<String> frontOwners, long at) {

        /** @return both lists of owners, at the later time */
        Missed and(Missed later) {
            List<String> owners = new ArrayList<>(frontOwners);
            later.frontOwners.stream().filter(owner -> !owners.contains(owner)).forEach(owners::add);
            return new Missed(List.copyOf(owners), Math.max(at, later.at));
        }

    }

    /**
     * @param front the fast store (Infinispan)
     * @param back the durable store that decides (JPA)
     * @param pause how long the front is left alone after it failed
     * @param nanoClock a monotonic clock ({@link System#nanoTime} outside tests)
     * @param transactions the caller's JTA transaction, which the back joins
     */
    public TieredIdempotencyStore(IdempotencyStore front, IdempotencyStore back, Duration pause, LongSupplier nanoClock,
            TransactionGuard transactions) {
        this.front = front;
        this.back = back;
        this.pauseNanos = pause.toNanos();
        this.nanoClock = nanoClock;
        this.transactions = transactions;
    }

    @Override
    public ClaimResult claim(String key, String fingerprint, Duration lease, Duration retention) {
        String frontOwner = null;
        long leaseNanos = lease.toNanos();
        if (leaseNanos > longestLeaseNanos.get()) {
            // raised only: two claims with different leases at once must not lower it
            longestLeaseNanos.accumulateAndGet(leaseNanos, Math::max);
        }
        if (frontUsable()) {
            try {
                giveBackMissed(key);
                giveBackSomeMissed();
                ClaimResult fast = front.claim(key, fingerprint, lease, retention);
                if (fast instanceof ClaimResult.Existing existing && frontAnswers(existing.record(), fingerprint)) {
                    return fast;
                }
                // Else the front may be behind the back, which decides: another request's claim in
                // flight there (or one whose back claim never came), or an outcome the front counts
                // as lost while the back may hold it.
                frontOwner = fast instanceof ClaimResult.Acquired acquired ? acquired.owner() : null;
            } catch (RuntimeException e) {
                frontFailed("claim", e);
            }
        }
        ClaimResult decided;
        try {
            decided = back.claim(key, fingerprint, lease, retention);
        } catch (RuntimeException e) {
            releaseFront(key, frontOwner);
            throw e;
        }
        if (decided instanceof ClaimResult.Acquired acquired) {
            return new ClaimResult.Acquired(Owners.join(acquired.owner(), frontOwner), acquired.takeover());
        }
        IdempotencyRecord held = ((ClaimResult.Existing) decided).record();
        if (frontOwner != null) {
            // A copy is stored under this caller's fingerprint: only the same request may make one.
            if (held.state() == RecordState.COMPLETED && held.fingerprint().equals(fingerprint)) {
                copyToFront(key, frontOwner, held.outcome(), lease);
            } else {
                releaseFront(key, frontOwner);
            }
        }
        return decided;
    }

    /**
     * @return whether the front's record answers a claim alone: the same request's record, in
     *     progress, executed or completed (the storm of retries never reaches the back)
     */
    private static boolean frontAnswers(IdempotencyRecord found, String fingerprint) {
        return found.fingerprint().equals(fingerprint) && found.state() != RecordState.OUTCOME_LOST;
    }

    @Override
    public boolean markExecuted(String key, String owner, Duration lease, Duration retention) {
        boolean marked = back.markExecuted(key, Owners.back(owner), lease, retention);
        String frontOwner = Owners.front(owner);
        if (marked && frontOwner != null && frontUsable()) {
            try {
                // Kept in front for the lease only: if this transaction rolls back and the front
                // misses the release, its mark lapses as fast as an ordinary claim would.
                front.markExecuted(key, frontOwner, lease, lease);
            } catch (RuntimeException e) {
                frontFailed("markExecuted", e);
            }
        }
        return marked;
    }

    @Override
    public boolean complete(String key, String owner, StoredOutcome outcome, Duration retention) {
        long completedAt = nanoClock.getAsLong(); // not after: the back counts from its own start, maybe a blocked while earlier
        boolean completed = back.complete(key, Owners.back(owner), outcome, retention);
        String frontOwner = Owners.front(owner);
        if (!completed) {
            releaseFront(key, frontOwner);
        } else if (!transactions.whenTransactionEnds(end -> {
            if (end == TransactionGuard.End.COMMITTED) {
                copyForWhatIsLeft(key, frontOwner, outcome, retention, completedAt);
            } else {
                releaseFront(key, frontOwner); // the back decides: it may not have committed
            }
        })) {
            // No transaction: the back's completion is final already. In one, the back joined it,
            // and the front may only show what committed.
            copyForWhatIsLeft(key, frontOwner, outcome, retention, completedAt);
        }
        return completed;
    }

    /**
     * Copies a completed outcome to the front for what is left of the back's retention: the back
     * keeps its record for the retention from its completion, not from the commit nor from its own
     * answer (a commit of its own that stalled), and the copy ends with it.
     */
    private void copyForWhatIsLeft(String key, String frontOwner, StoredOutcome outcome, Duration retention,
            long completedAt) {
        Duration left = retention.minusNanos(nanoClock.getAsLong() - completedAt);
        if (!left.isNegative() && !left.isZero()) {
            copyToFront(key, frontOwner, outcome, left);
        } else {
            releaseFront(key, frontOwner); // the back's record ended already
        }
    }

    @Override
    public boolean release(String key, String owner) {
        try {
            return back.release(key, Owners.back(owner));
        } finally {
            // also when the back failed: the front must not answer for a claim the back may have ended
            releaseFront(key, Owners.front(owner));
        }
    }

    /** @return whether the back, which decides, joins the caller's transaction */
    @Override
    public boolean joinsCallerTransaction() {
        return back.joinsCallerTransaction();
    }

    @Override
    public Optional<IdempotencyRecord> find(String key) {
        if (frontUsable()) {
            try {
                giveBackSomeMissed();
                Optional<IdempotencyRecord> fast = front.find(key);
                if (fast.isPresent() && fast.get().state() == RecordState.COMPLETED) {
                    return fast;
                }
            } catch (RuntimeException e) {
                frontFailed("find", e);
            }
        }
        return back.find(key);
    }

    /** The back's record and times: the back decides every claim, the front only keeps copies. */
    @Override
    public Optional<RecordDetails> inspect(String key) {
        return back.inspect(key);
    }

    /** @return whether the front is in use now (it has not failed within the pause) */
    public boolean frontInUse() {
        return frontUsable();
    }

    private void copyToFront(String key, String frontOwner, StoredOutcome outcome, Duration retention) {
        if (frontOwner == null) {
            return;
        }
        if (!frontUsable()) {
            // its claim is given back instead, later: a retry then gets the back's record (and a copy)
            remember(key, frontOwner);
            return;
        }
        try {
            front.complete(key, frontOwner, outcome, retention);
        } catch (RuntimeException e) {
            frontFailed("complete", e);
            remember(key, frontOwner);
        }
    }

    private void releaseFront(String key, String frontOwner) {
        if (frontOwner == null) {
            return;
        }
        if (!frontUsable()) {
            remember(key, frontOwner);
            return;
        }
        try {
            front.release(key, frontOwner);
        } catch (RuntimeException e) {
            frontFailed("release", e);
            remember(key, frontOwner);
        }
    }

    /** Notes a front claim whose update the pause skipped, while fewer than {@value #MAX_MISSED} are. */
    private void remember(String key, String frontOwner) {
        long now = nanoClock.getAsLong();
        if (missed.size() >= MAX_MISSED) {
            // claims older than any lease answer nothing alone any more: their keys need nothing
            long longest = longestLeaseNanos.get();
            missed.values().removeIf(old -> now - old.at() > longest);
        }
        if (missed.size() < MAX_MISSED || missed.containsKey(key)) {
            // merged, not replaced: a late old owner's skipped update must not hide a newer one's
            missed.merge(key, new Missed(List.of(frontOwner), now), Missed::and);
        }
    }

    /** Gives back the key's front claims whose update a pause skipped, if there are any. */
    private void giveBackMissed(String key) {
        if (missed.isEmpty()) {
            return;
        }
        Missed skipped = missed.get(key);
        if (skipped != null) {
            giveBack(key, skipped);
        }
    }

    /**
     * Gives back up to {@value #MISSED_PER_CALL} other keys' skipped front claims: a retry of those
     * keys may come to another node, whose front answers alone.
     */
    private void giveBackSomeMissed() {
        if (missed.isEmpty()) {
            return;
        }
        int given = 0;
        for (Map.Entry<String, Missed> entry : missed.entrySet()) {
            if (given++ == MISSED_PER_CALL) {
                return;
            }
            giveBack(entry.getKey(), entry.getValue());
        }
    }

    /**
     * Releases each skipped owner's front claim, then forgets them (unless more were skipped
     * meanwhile). Released before they are forgotten: a claim of the key meanwhile, on another
     * thread, still finds them and releases them itself (again: an owner's release is idempotent)
     * instead of meeting them in front; a failure leaves them all remembered.
     */
    private void giveBack(String key, Missed skipped) {
        for (String owner : skipped.frontOwners()) {
            front.release(key, owner);
        }
        missed.remove(key, skipped);
    }

    private boolean frontUsable() {
        long until = frontPausedUntil.get();
        if (until == IN_USE) {
            return true;
        }
        if (nanoClock.getAsLong() - until < 0) {
            return false;
        }
        // One caller ends the pause and says so; a failure meanwhile starts a new one.
        if (frontPausedUntil.compareAndSet(until, IN_USE)) {
            LOG.info(Messages.tieredFrontRetried());
        }
        return true;
    }

    private void frontFailed(String operation, RuntimeException e) {
        long until = nanoClock.getAsLong() + pauseNanos;
        frontPausedUntil.set(until == IN_USE ? until + 1 : until);
        FRONT_FAILURES.log(Level.WARNING, Messages.tieredFrontFailed(operation, Duration.ofNanos(pauseNanos)), e);
    }

    /**
     * The owner token handed to callers: the back's and the front's (when the front claimed too),
     * as {@code <length of the back's>:<back's><front's>}, so that neither needs a separator it
     * cannot contain.
     */
    static final class Owners {

        private Owners() {
        }

        static String join(String back, String front) {
            return back.length() + ":" + back + (front == null ? "" : front);
        }

        static String back(String joined) {
            int end = backEnd(joined);
            // A token this store did not hand out is nobody's: the back says so.
            return end < 0 ? joined : joined.substring(joined.indexOf(':') + 1, end);
        }

        static String front(String joined) {
            int end = backEnd(joined);
            return end < 0 || end == joined.length() ? null : joined.substring(end);
        }

        /** @return where the back's token ends, or -1 when the text is not a joined token */
        private static int backEnd(String joined) {
            int colon = joined.indexOf(':');
            if (colon < 1 || colon > 9) {
                return -1;
            }
            try {
                long length = Long.parseLong(joined.substring(0, colon));
                long end = colon + 1L + length;
                return length >= 0 && end <= joined.length() ? (int) end : -1;
            } catch (NumberFormatException e) {
                return -1;
            }
        }
    }
}
