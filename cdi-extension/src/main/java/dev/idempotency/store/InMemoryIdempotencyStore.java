package dev.idempotency.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;
import java.util.function.LongSupplier;

import dev.idempotency.internal.Messages;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.RecordDetails;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.spi.support.OwnerTokens;

/**
 * The default store: a bounded map in this JVM. Atomic through {@link ConcurrentHashMap#compute};
 * expiry by the JVM's monotonic clock ({@link System#nanoTime()}), so wall-clock changes do not
 * move it. SINGLE-NODE: other instances do not see its keys, and a restart forgets them.
 *
 * <p>A claim's record is kept for the retention given to {@link #claim}, its lease ending sooner:
 * after the lease only the same request takes it over, and until a takeover its owner still
 * completes it.
 *
 * <p>Bounded: at {@code idempotency.memory.max-entries} live records, or once its live records
 * take {@code idempotency.memory.max-bytes} (estimated: the stored bodies and headers plus 1 KiB
 * a record), it refuses claims of new keys with {@link IdempotencyStoreException} (fail closed,
 * HTTP 503) rather than evict a record a retry may still need. A completion is never refused
 * for room: the work ran, so the bound can be passed by the outcomes of claims already taken.
 * Expired records are swept at most once a second, by whichever claim or look-up comes first, so
 * memory returns once keys expire and the store is used again; a sweep visits the records due to
 * expire (an {@link ExpiryIndex}), not every live one, so its cost follows the rate of claims, not
 * the number of records kept.
 */
public class InMemoryIdempotencyStore implements IdempotencyStore {

    private static final long SWEEP_INTERVAL_NANOS = Duration.ofSeconds(1).toNanos();
    /** When full, sweep sooner, but not on every refused claim: a full store under load must stay cheap. */
    private static final long FULL_SWEEP_INTERVAL_NANOS = Duration.ofMillis(100).toNanos();

    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    private final AtomicInteger live = new AtomicInteger();
    /** The estimated heap of the live records ({@link Entry#size()}). */
    private final AtomicLong bytes = new AtomicLong();
    private final ReentrantLock sweepLock = new ReentrantLock();
    private final AtomicLong lastSweep = new AtomicLong();
    private ExpiryIndex expiries;
    private LongSupplier nanoClock;
    private int maxEntries;
    private long maxBytes;

    /**
     * For the container's client proxy only. The library's CDI extension adds the store as a bean
     * made with {@link #InMemoryIdempotencyStore(int, long, LongSupplier)}, its bounds from
     * {@code idempotency.memory.max-entries} and {@code idempotency.memory.max-bytes}.
     */
    protected InMemoryIdempotencyStore() {
    }

    /**
     * @param maxEntries the capacity
     * @param nanoClock a monotonic clock in nanoseconds (tests pass a manual one)
     */
    public InMemoryIdempotencyStore(int maxEntries, LongSupplier nanoClock) {
        this(maxEntries, Long.MAX_VALUE, nanoClock);
    }

    /**
     * @param maxEntries the capacity in records
     * @param maxBytes the capacity in estimated bytes of records
     * @param nanoClock a monotonic clock in nanoseconds (tests pass a manual one)
     */
    public InMemoryIdempotencyStore(int maxEntries, long maxBytes, LongSupplier nanoClock) {
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
        this.nanoClock = Objects.requireNonNull(nanoClock);
        long now = nanoClock.getAsLong();
        lastSweep.set(now);
        this.expiries = new ExpiryIndex(now);
    }

    /** @return the capacity */
    public int maxEntries() {
        return maxEntries;
    }

    /** @return how many records the map holds, expired ones not yet swept included */
    public int size() {
        return entries.size();
    }

    @Override
    public ClaimResult claim(String key, String fingerprint, Duration lease, Duration retention) {
        long now = nanoClock.getAsLong();
        sweep(now, false);
        ClaimResult result = tryClaim(key, fingerprint, lease, retention, now);
        if (result == null) {
            sweep(now, true);
            result = tryClaim(key, fingerprint, lease, retention, now); // another thread's sweep may have made room
        }
        if (result == null) {
            throw new IdempotencyStoreException(live.get() >= maxEntries ? Messages.inMemoryStoreFull(maxEntries)
                    : Messages.inMemoryStoreFullByBytes(maxBytes));
        }
        return result;
    }

    /** @return the claim's result, or {@code null} when the store is full */
    private ClaimResult tryClaim(String key, String fingerprint, Duration lease, Duration retention, long now) {
        // A live record this claim cannot take over is answered without the map bin's lock, which
        // every replay and duplicate of one key would otherwise queue on. Records are immutable and
        // replaced whole: what get() returns is the record as compute() would have found it just
        // before a change still in flight, so the answer is the same as taking the lock first.
        Entry seen = entries.get(key);
        if (seen != null && seen.standsAgainst(fingerprint, now)) {
            return new ClaimResult.Existing(seen.toRecord(key, now));
        }
        ClaimResult[] result = new ClaimResult[1];
        entries.compute(key, (k, current) -> {
            if (current != null && current.standsAgainst(fingerprint, now)) {
                result[0] = new ClaimResult.Existing(current.toRecord(k, now));
                return current;
            }
            // live, yet not standing against this claim: the same request's abandoned claim
            boolean takeover = current != null && !current.expiredAt(now);
            if (current == null && bytes.get() >= maxBytes) {
                return null; // result stays null: full by bytes (a new key only: others replace a record)
            }
            if (current == null && live.getAndUpdate(n -> n < maxEntries ? n + 1 : n) >= maxEntries) {
                return null; // result stays null: full (the slot is reserved atomically otherwise)
            }
            String owner = OwnerTokens.next();
            result[0] = new ClaimResult.Acquired(owner, takeover);
            long kept = Math.max(lease.toNanos(), retention.toNanos());
            return replaced(current, new Entry(RecordState.IN_PROGRESS, fingerprint, owner, null, now + kept,
                    now + lease.toNanos(), now, ticket(k, current, now + kept)));
        });
        return result[0];
    }

    @Override
    public boolean complete(String key, String owner, StoredOutcome outcome, Duration retention) {
        Objects.requireNonNull(outcome, "outcome");
        byte[] kept = CompactOutcome.encode(outcome); // outside the map's lock
        // A completed record has no owner any more: nobody changes it until it expires.
        return changeIfOwned(key, owner, true, (current, now) ->
                new Entry(RecordState.COMPLETED, current.fingerprint, null, kept, now + retention.toNanos(), 0,
                        current.claimedAtNanos, ticket(key, current, now + retention.toNanos())));
    }

    @Override
    public boolean markExecuted(String key, String owner, Duration lease, Duration retention) {
        // A mark repeated by the owner of its executed record (its first answer lost) changes nothing.
        return changeIfOwned(key, owner, true, (current, now) -> current.state == RecordState.EXECUTED ? current
                : new Entry(RecordState.EXECUTED, current.fingerprint, owner, null, now + retention.toNanos(),
                        now + lease.toNanos(), current.claimedAtNanos, ticket(key, current, now + retention.toNanos())));
    }

    @Override
    public boolean release(String key, String owner) {
        return changeIfOwned(key, owner, true, (current, now) -> {
            live.decrementAndGet();
            return replaced(current, null);
        });
    }

    /**
     * Applies a change to the record only while {@code owner} holds its in-progress claim (or, if
     * {@code orExecuted}, its executed record); true if it did. The lease does not matter: only a
     * takeover (a new owner) or the end of the record's retention ends an owner's hold.
     */
    private boolean changeIfOwned(String key, String owner, boolean orExecuted, BiFunction<Entry, Long, Entry> change) {
        long now = nanoClock.getAsLong();
        boolean[] done = new boolean[1];
        entries.computeIfPresent(key, (k, current) -> {
            if (!current.ownedBy(owner, now, orExecuted)) {
                return current;
            }
            done[0] = true;
            Entry changed = change.apply(current, now);
            return changed == null ? null : replaced(current, changed);
        });
        return done[0];
    }

    /**
     * Accounts for one record replacing another ({@code null}: none), files the new one's ticket if
     * it has a ticket of its own, and returns it.
     */
    private Entry replaced(Entry current, Entry next) {
        bytes.addAndGet((next == null ? 0 : next.size()) - (current == null ? 0 : current.size()));
        if (next != null && (current == null || next.ticket != current.ticket)) {
            expiries.file(next.ticket, next.firstLook());
        }
        return next;
    }

    /**
     * @return the expiry ticket of a record that expires at {@code expiresAtNanos} and replaces
     *     {@code current} ({@code null}: none): its predecessor's, filed no later than the new
     *     record expires, or a new one where it would be filed too late
     */
    private static ExpiryIndex.Ticket ticket(String key, Entry current, long expiresAtNanos) {
        if (current == null) {
            return new ExpiryIndex.Ticket(key);
        }
        // the map's own key string, which the current ticket holds, not another copy of it
        return expiresAtNanos - current.expiresAtNanos >= 0 ? current.ticket : new ExpiryIndex.Ticket(current.ticket.key);
    }

    /** @return how many expiry tickets are filed: one per live record, and those not yet dropped (for tests) */
    long expiryTickets() {
        return expiries.filed();
    }

    /** @return the estimated heap of the live records, in bytes */
    public long bytes() {
        return bytes.get();
    }

    /** @return {@code true}: a replay is a map look-up already; the library keeps no copy */
    @Override
    public boolean keepsRecordsInThisJvm() {
        return true;
    }

    @Override
    public Optional<IdempotencyRecord> find(String key) {
        long now = nanoClock.getAsLong();
        sweep(now, false);
        Entry entry = entries.get(key);
        return entry == null || entry.expiredAt(now) ? Optional.empty() : Optional.of(entry.toRecord(key, now));
    }

    /**
     * The times are this node's: its monotonic clock's distances from now, added to the wall clock
     * once per call.
     */
    @Override
    public Optional<RecordDetails> inspect(String key) {
        long now = nanoClock.getAsLong();
        Instant wallNow = Instant.now();
        Entry entry = entries.get(key);
        if (entry == null || entry.expiredAt(now)) {
            return Optional.empty();
        }
        IdempotencyRecord record = entry.toRecord(key, now);
        boolean leased = record.state() == RecordState.IN_PROGRESS || record.state() == RecordState.EXECUTED;
        return Optional.of(new RecordDetails(record, wallNow.plusNanos(entry.claimedAtNanos - now),
                leased ? wallNow.plusNanos(entry.deadlineNanos - now) : null, wallNow.plusNanos(entry.expiresAtNanos - now)));
    }

    /** Removes expired records, at most once a second, or every 100 ms while the store is full. */
    private void sweep(long now, boolean full) {
        long last = lastSweep.get();
        if (now - last < (full ? FULL_SWEEP_INTERVAL_NANOS : SWEEP_INTERVAL_NANOS) || !sweepLock.tryLock()) {
            return;
        }
        try {
            if (!lastSweep.compareAndSet(last, now)) {
                return;
            }
            expiries.takeDue(now, due -> entries.computeIfPresent(due.key, (key, entry) -> {
                if (entry.ticket != due) {
                    return entry; // a new record of the key, with a ticket of its own
                }
                if (entry.expiredAt(now)) {
                    live.decrementAndGet();
                    bytes.addAndGet(-entry.size());
                    return null;
                }
                expiries.refile(due, entry.nextLookAt(now));
                return entry;
            }));
        } finally {
            sweepLock.unlock();
        }
    }

    /**
     * One immutable record; replaced, never mutated, so reads need no lock. Compact, because a
     * completed record stays alive for its ttl and every collection copies it: the outcome as one
     * byte array ({@link CompactOutcome}), and no owner once completed.
     */
    private static final class Entry {
        /** How soon after a claim the sweep first looks at it (see {@link #firstLook()}). */
        static final long FIRST_LOOK_NANOS = Duration.ofSeconds(1).toNanos();

        /** Key, fingerprint, owner, the encoded headers' framing, map entry and expiry ticket: at most this (InMemoryStoreFootprintTest). */
        static final int OVERHEAD = 1024;

        final RecordState state;
        final String fingerprint;
        /** The claim's owner token; null once COMPLETED. */
        final String owner;
        /** The outcome as {@link CompactOutcome} encodes it; null before COMPLETED. */
        final byte[] outcome;
        final long expiresAtNanos;
        /** IN_PROGRESS: when the lease ends (a takeover by the same request may follow); EXECUTED: when the outcome counts as lost. */
        final long deadlineNanos;
        /** When the current claim was made (a takeover is a new claim), for the support look-up. */
        final long claimedAtNanos;
        /** Where the sweep finds this record ({@link ExpiryIndex}). */
        final ExpiryIndex.Ticket ticket;

        Entry(RecordState state, String fingerprint, String owner, byte[] outcome, long expiresAtNanos,
                long deadlineNanos, long claimedAtNanos, ExpiryIndex.Ticket ticket) {
            this.state = state;
            this.fingerprint = fingerprint;
            this.owner = owner;
            this.outcome = outcome;
            this.expiresAtNanos = expiresAtNanos;
            this.deadlineNanos = deadlineNanos;
            this.claimedAtNanos = claimedAtNanos;
            this.ticket = ticket;
        }

        /** @return the estimated heap: {@link #OVERHEAD} plus the encoded outcome (its body and headers) */
        long size() {
            return OVERHEAD + (outcome == null ? 0 : outcome.length);
        }

        boolean expiredAt(long now) {
            return now - expiresAtNanos >= 0;
        }

        /**
         * @return when the sweep first looks at a new record: a claim a second after it was made
         *     (or at the end of its lease, if sooner), so that the ticket of a claim given back is
         *     dropped within about two seconds, and the tickets not yet dropped stay as few as
         *     the claims of two seconds whatever the lease; else when it expires
         */
        long firstLook() {
            if (state != RecordState.IN_PROGRESS) {
                return expiresAtNanos;
            }
            long soon = claimedAtNanos + FIRST_LOOK_NANOS;
            return deadlineNanos - soon < 0 ? deadlineNanos : soon;
        }

        /**
         * @return when the sweep looks at this record again, after a look at {@code now}: a
         *     completed record when it expires (nobody gives it back); a claim or an executed
         *     record, which its owner may give back any time, after as long again as it has lived
         *     (at least a second), so that a ticket outlives a record given back by at most the
         *     record's age, not for the rest of its lease or ttl, and a record is looked at about
         *     log2(its lifetime in seconds) times
         */
        long nextLookAt(long now) {
            if (state == RecordState.COMPLETED) {
                return expiresAtNanos;
            }
            long again = now + Math.max(FIRST_LOOK_NANOS, now - claimedAtNanos);
            return expiresAtNanos - again < 0 ? expiresAtNanos : again;
        }

        boolean abandonedAt(long now) {
            return state == RecordState.IN_PROGRESS && now - deadlineNanos >= 0;
        }

        /**
         * @return whether a claim with this fingerprint meets this record as it is (a replay, a
         *     duplicate, a reused key): it is live, and not the same request's abandoned claim,
         *     which the claim takes over
         */
        boolean standsAgainst(String claimFingerprint, long now) {
            return !expiredAt(now) && !(abandonedAt(now) && fingerprint.equals(claimFingerprint));
        }

        boolean ownedBy(String candidate, long now, boolean orExecuted) {
            boolean claimState = state == RecordState.IN_PROGRESS || (orExecuted && state == RecordState.EXECUTED);
            return claimState && owner.equals(candidate) && !expiredAt(now);
        }

        IdempotencyRecord toRecord(String key, long now) {
            if (state == RecordState.EXECUTED && now - deadlineNanos >= 0) {
                return IdempotencyRecord.outcomeLost(key, fingerprint);
            }
            return new IdempotencyRecord(key, state, fingerprint, outcome == null ? null : CompactOutcome.decode(outcome));
        }
    }
}
