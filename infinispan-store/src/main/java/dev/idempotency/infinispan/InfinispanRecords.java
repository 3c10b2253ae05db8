package dev.idempotency.infinispan;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.infinispan.client.hotrod.Flag;
import org.infinispan.client.hotrod.MetadataValue;
import org.infinispan.client.hotrod.RemoteCache;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.RecordDetails;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.spi.support.OwnerTokens;

/**
 * The Infinispan store's logic on one remote cache, free of CDI. Every expiry and every lease is
 * judged by the server's clock (entry lifespans, entry creation times); no application node's
 * clock is ever compared.
 *
 * <p><b>Entries.</b> The record {@code key} (a {@link StoredRecord}) is the only thing that says
 * who owns a key; a claim keeps it for {@code max(lease, retention)}, so an abandoned claim binds
 * the key to its fingerprint until its retention ends. A claim's record ({@value StoredRecord#CLAIMED})
 * carries its lease: the lease lasts while the server's clock is before the entry's creation
 * time (stamped at the write that made it that owner's, by each owner of the entry on its own
 * clock) plus the lease. Owner tokens never repeat ({@link OwnerTokens}), so a record of one owner is written by its
 * claim or takeover, and again only by that claim when it confirms a write whose answer it lost,
 * then with its count of rewrites one up ({@link StoredRecord#rewritten()}): no write of a record
 * repeats the bytes of an earlier one.
 *
 * <p><b>Claim.</b> One {@code putIfAbsent} of the record (with {@code FORCE_RETURN_VALUE}, so that
 * the loser sees the winner's record): no previous record, or one with the claimer's own token
 * (the client retried the write after a topology change and the first attempt won), means
 * acquired. Otherwise the previous record is the answer ({@link ClaimResult.Existing}) unless it
 * is in progress with the <em>same</em> fingerprint and its owner's lease is over: the record's
 * {@code getWithMetadata} (its version and creation time), then the server's time now (a probe
 * entry {@code key|now} written and its creation time read), and, when the lease is over by that
 * time, a {@code replaceWithVersion} of that very version to the claimer's record is a takeover.
 * A claim with another fingerprint never takes over.
 *
 * <p><b>Why one key is never acquired twice.</b> Acquiring means writing the record with one's
 * own token: either {@code putIfAbsent} on a missing record (atomic on the key's primary owner:
 * one winner) or {@code replaceWithVersion} from the version read (compare-and-set: of many
 * takers of one version, one wins). So each version of the record has at most one successor
 * owner. A takeover happens only when the version read is still that owner's claim and the
 * server's clock has passed its creation time plus its lease plus the allowed clock skew
 * ({@code idempotency.infinispan.clock-skew}); a lease once over stays over (the version check
 * keeps the decision valid until the replace; the server checks the version, then replaces by
 * value equality, and no two writes of a key write equal bytes: each carries its own owner token,
 * and an owner's rewrite its count of rewrites). The record's creation time and
 * the probe's may come from two servers' clocks, so the servers keep their clocks in step (NTP):
 * a skew beyond the allowance would end a live lease early by the excess.
 *
 * <p><b>The previous version's claims.</b> A record {@code IN_PROGRESS} was written by a version
 * before 3 of the schema, whose claims first wrote a lease marker {@code key|lease|<owner token>}
 * with the lease as its lifespan: such a record is taken over only when its owner's marker is
 * gone. A node of that version reads our {@value StoredRecord#CLAIMED} as a state it does not
 * know, as executed: it answers {@code 409} and never takes over. A rolling upgrade therefore
 * never runs a key twice.
 *
 * <p><b>Complete, mark, release.</b> Owner check on the record, then {@code replaceWithVersion} /
 * {@code removeWithVersion}: only the owner changes its record, an entry changed in between (a
 * takeover) makes them fail, and the lease does not matter, so a slow owner that nobody took over
 * still completes, marks or releases after its lease.
 *
 * <p>An executed record keeps the retention as its lifespan; a second entry, {@code key|due},
 * lives for the lease given to {@code markExecuted}: while it exists the outcome is still
 * expected, after it the outcome counts as lost. The marker is written before the record turns
 * EXECUTED and never removed, only expired, so a reader never sees an executed record without it
 * while its lease lasts.
 *
 * <p><b>Expiry.</b> Every write sets its lifespan and no max-idle, so a cache's own expiration
 * settings never cut a record short: a lifespan of at least a millisecond and at most about 68
 * years ({@link #MAX_LIFESPAN_MILLIS}, what the server can report back with the creation time).
 */
public final class InfinispanRecords {

    /** Scoped keys are base64url: they never contain this. */
    static final String DUE_SUFFIX = "|due";
    /** Followed by the owner token: that owner's lease marker, in versions before 3 of the schema. */
    static final String LEASE_INFIX = "|lease|";
    /** The entry written to learn the server's time now, from its creation time. */
    static final String NOW_SUFFIX = "|now";
    /** The probe's lifespan: long enough to be read back, and it must have one to be stamped. */
    private static final long PROBE_MILLIS = 10_000;
    /** Takeover attempts of one claim when the record keeps changing under it; then it answers in progress. */
    private static final int MAX_TAKEOVER_ROUNDS = 3;

    /** How often a rewrite whose answer was lost after it landed is written once more. */
    private static final int REWRITE_ATTEMPTS = 4;
    /**
     * Every write's max-idle: none. A max-idle of 0 would mean the cache's default, so a cache
     * defined with {@code <expiration max-idle="..."/>} would drop a record nobody read for that
     * long, within its retention or its lease, and let its key run again.
     */
    private static final long NO_MAX_IDLE = -1;
    /**
     * The longest lifespan written, about 68 years: the server reports an entry's lifespan in whole
     * seconds as an {@code int}, and a longer one reads as immortal and without its creation time,
     * so an abandoned claim could never be taken over. Longer retentions are cut to it.
     */
    static final long MAX_LIFESPAN_MILLIS = Integer.MAX_VALUE * 1000L;

    private final RemoteCache<String, StoredRecord> cache;
    private final RemoteCache<String, StoredRecord> returning;
    private final long clockSkewMillis;

    /**
     * With the default allowance for the servers' clock skew ({@link InfinispanSettings#DEFAULT_CLOCK_SKEW}).
     *
     * @param cache the idempotency cache
     */
    public InfinispanRecords(RemoteCache<String, StoredRecord> cache) {
        this(cache, InfinispanSettings.DEFAULT_CLOCK_SKEW);
    }

    /**
     * @param cache the idempotency cache
     * @param clockSkew how far apart the servers' clocks may be: a claim is taken over only that
     *     long after its lease ended by the clock of the server that judges it
     */
    public InfinispanRecords(RemoteCache<String, StoredRecord> cache, Duration clockSkew) {
        this.cache = cache;
        this.returning = cache.withFlags(Flag.FORCE_RETURN_VALUE);
        this.clockSkewMillis = clockSkew.toMillis();
    }

    /**
     * See {@link dev.idempotency.spi.IdempotencyStore#claim(String, String, Duration, Duration)}.
     *
     * @param key the scoped, hashed key
     * @param fingerprint the request's fingerprint
     * @param lease how long the claim stays in progress before a claim with the same fingerprint takes it over
     * @param retention how long the record binds the key to its fingerprint if it is never completed
     * @return the claim acquired, or the live record that holds the key
     */
    public ClaimResult claim(String key, String fingerprint, Duration lease, Duration retention) {
        return call("claim", () -> {
            String owner = OwnerTokens.next();
            long leaseMillis = lifespanMillis(lease);
            StoredRecord claimed = StoredRecord.claimed(fingerprint, owner, leaseMillis);
            long keptMillis = Math.max(leaseMillis, lifespanMillis(retention));
            StoredRecord previous;
            try {
                previous = returning.putIfAbsent(key, claimed, keptMillis, TimeUnit.MILLISECONDS, NO_MAX_IDLE,
                        TimeUnit.MILLISECONDS);
            } catch (RuntimeException refused) {
                // A bounded cache that is full refuses new entries instead of evicting: a key that has
                // a record still answers with it (replays go on), a new key fails (503, nothing runs).
                return existingOrThrow(key, fingerprint, owner, keptMillis, refused);
            }
            if (previous == null) {
                return new ClaimResult.Acquired(owner, false);
            }
            // The client retries a write whose answer was lost in a topology change (ISPN006010):
            // finding its own fresh owner token means the first attempt landed.
            if (previous.ownedBy(owner)) {
                return ownWriteConfirmed(key, owner, keptMillis, false);
            }
            return takeOverOrFind(key, fingerprint, claimed, keptMillis, previous);
        });
    }

    /**
     * A claim that found a record: takes it over when it is the same request's and its owner's
     * lease is over, else reports it.
     */
    private ClaimResult takeOverOrFind(String key, String fingerprint, StoredRecord claimed, long keptMillis,
            StoredRecord found) {
        StoredRecord seen = found;
        for (int round = 0; ; round++) {
            if (seen != null && seen.ownedBy(claimed.getOwner())) {
                return ownWriteConfirmed(key, claimed.getOwner(), keptMillis, true); // a retried write of ours landed
            }
            if (seen == null) {
                // gone meanwhile (released, expired): a free key
                StoredRecord previous;
                try {
                    previous = returning.putIfAbsent(key, claimed, keptMillis, TimeUnit.MILLISECONDS, NO_MAX_IDLE,
                            TimeUnit.MILLISECONDS);
                } catch (RuntimeException lost) {
                    // as the claim's first write: it may have landed with its answer lost (the record is
                    // then this claim's), or been refused by a full cache
                    return existingOrThrow(key, fingerprint, claimed.getOwner(), keptMillis, lost);
                }
                if (previous == null) {
                    return new ClaimResult.Acquired(claimed.getOwner(), false);
                }
                if (previous.ownedBy(claimed.getOwner())) {
                    return ownWriteConfirmed(key, claimed.getOwner(), keptMillis, false);
                }
                seen = previous;
            }
            if (!seen.inProgressFor(fingerprint) || round >= MAX_TAKEOVER_ROUNDS) {
                return new ClaimResult.Existing(toRecord(key, seen));
            }
            MetadataValue<StoredRecord> current = cache.getWithMetadata(key);
            if (current != null && current.getValue().ownedBy(seen.getOwner()) && current.getValue().inProgress()) {
                if (!leaseOver(key, current)) {
                    return new ClaimResult.Existing(toRecord(key, current.getValue()));
                }
                // Take over that owner's record, and only the version read, so that of many takers one wins.
                boolean taken;
                try {
                    taken = cache.replaceWithVersion(key, claimed, current.getVersion(),
                            keptMillis, TimeUnit.MILLISECONDS, NO_MAX_IDLE, TimeUnit.MILLISECONDS);
                } catch (RuntimeException lost) {
                    // The write may have landed with its answer lost: the record, if ours, is the takeover.
                    return takenOverOrThrow(key, claimed.getOwner(), keptMillis, lost);
                }
                if (taken) {
                    return new ClaimResult.Acquired(claimed.getOwner(), true);
                }
                current = cache.getWithMetadata(key); // another taker won, or a retry of ours did
            }
            seen = current == null ? null : current.getValue();
        }
    }

    /**
     * @param current a claim in progress, as read with its metadata
     * @return whether its owner's lease is over by the server's clock; never when that cannot be
     *     told (no creation time, or the probe refused by a full cache): the claim then stays its owner's
     */
    private boolean leaseOver(String key, MetadataValue<StoredRecord> current) {
        StoredRecord record = current.getValue();
        if (record.leaseInMarker()) {
            // a previous version's claim: its lease lasts while its marker does (never written again)
            return !cache.containsKey(leaseKey(key, record.getOwner()));
        }
        if (!record.leaseInRecord() || current.getCreated() < 0) {
            return false; // no lease to judge (a damaged record, or no creation time kept): never taken over
        }
        long now;
        try {
            now = serverNow(key);
        } catch (RuntimeException e) {
            if (full(e)) {
                return false;
            }
            throw e;
        }
        // A lease the clock cannot add to (damaged, or another version's "no end") never ends; the
        // difference of two of the server's times cannot overflow where their sum with it could.
        long leaseMillis = record.getLeaseMillis();
        return leaseMillis >= 0 && now - current.getCreated() - clockSkewMillis >= leaseMillis;
    }

    /**
     * @return the server's time now: the creation time stamped on a probe entry written now, as the
     *     owner of the probe that answers the read stamped it (each owner stamps its own copy, by its
     *     own clock, within the write)
     */
    private long serverNow(String key) {
        String probe = key + NOW_SUFFIX;
        cache.put(probe, StoredRecord.marker(), PROBE_MILLIS, TimeUnit.MILLISECONDS, NO_MAX_IDLE, TimeUnit.MILLISECONDS);
        MetadataValue<StoredRecord> written = cache.getWithMetadata(probe);
        if (written == null || written.getCreated() < 0) {
            throw new IdempotencyStoreException("the Infinispan server kept no creation time for " + probe);
        }
        return written.getCreated();
    }

    /**
     * A claim whose write failed (the cache is full, the server failed or did not answer in time,
     * the key's lock is held): a record of its own owner token means the write landed, and once
     * confirmed the claim is acquired; another request's record, or a completed one, is its
     * answer, as for a claim that lost the {@code putIfAbsent}; the same request's claim in
     * progress is its answer only within its owner's lease. After the lease the failure stands
     * rather than another write to a key that just refused one: reading such a claim as in
     * progress kept a dead owner's key at {@code 409} for its whole retention while writes to it
     * failed (and the tiered store's front answered so alone, never failing over). None, or one of
     * its own that cannot be confirmed, and the failure stands too.
     */
    private ClaimResult existingOrThrow(String key, String fingerprint, String owner, long keptMillis,
            RuntimeException refused) {
        try {
            MetadataValue<StoredRecord> current = cache.getWithMetadata(key);
            StoredRecord existing = current == null ? null : current.getValue();
            if (existing != null && existing.ownedBy(owner)) {
                return ownWriteConfirmed(key, owner, keptMillis, false);
            }
            if (existing != null && (!existing.inProgressFor(fingerprint) || !leaseOver(key, current))) {
                return new ClaimResult.Existing(toRecord(key, existing));
            }
        } catch (RuntimeException e) {
            refused.addSuppressed(e);
        }
        throw refused;
    }

    /**
     * A takeover whose write failed: confirmed when the record is this claim's (the write landed,
     * its answer was lost), else the failure stands; without this, the record named an owner nobody
     * had, and every retry got {@code 409} for one more lease.
     */
    private ClaimResult takenOverOrThrow(String key, String owner, long keptMillis, RuntimeException lost) {
        try {
            StoredRecord now = cache.get(key);
            if (now != null && now.ownedBy(owner)) {
                return ownWriteConfirmed(key, owner, keptMillis, true);
            }
        } catch (RuntimeException e) {
            lost.addSuppressed(e);
        }
        throw lost;
    }

    /**
     * A claim found its own record without an answer to its own write (the answer was lost, or the
     * client's second attempt was answered by the first): that write may be on the key's primary
     * owner alone (a backup timed out, and the primary may be lost next), and a read tells nothing
     * of that. The record is written again with the version read; a write that succeeds is on every
     * owner. It restarts the claim's lease, by the moment of its own write.
     *
     * @return the claim acquired
     * @throws IdempotencyStoreException when the record is no longer this claim's, or was changed meanwhile
     */
    private ClaimResult ownWriteConfirmed(String key, String owner, long keptMillis, boolean takeover) {
        MetadataValue<StoredRecord> ours = cache.getWithMetadata(key);
        if (ours == null || !ours.getValue().ownedBy(owner) || !ours.getValue().inProgress()
                || !writtenAgain(key, ours, keptMillis)) {
            throw new IdempotencyStoreException("claim failed: its own write, whose answer was lost, could not be"
                    + " confirmed on every owner of the entry");
        }
        return new ClaimResult.Acquired(owner, takeover);
    }

    /**
     * See {@link dev.idempotency.spi.IdempotencyStore#complete}.
     *
     * @param key the scoped, hashed key
     * @param owner the owner token returned by {@link #claim}
     * @param outcome what to replay to retries
     * @param retention how long to keep the completed record
     * @return whether the caller still owned the claim, and the record is now COMPLETED
     */
    public boolean complete(String key, String owner, StoredOutcome outcome, Duration retention) {
        return call("complete", () -> {
            MetadataValue<StoredRecord> current = cache.getWithMetadata(key);
            if (!ownedOpen(current, owner)) {
                return false;
            }
            // An executed record's marker is left to expire: a reader that saw EXECUTED just before
            // this replace must still find it, or it would answer "outcome lost" for a stored one.
            if (cache.replaceWithVersion(key, current.getValue().completed(outcome), current.getVersion(),
                    lifespanMillis(retention), TimeUnit.MILLISECONDS, NO_MAX_IDLE, TimeUnit.MILLISECONDS)) {
                return true;
            }
            // The client sends a write again whose answer did not come in time: when the first
            // attempt landed, the version it moved refuses the second. Only this owner completes
            // its record (owner tokens never repeat); landed is not acknowledged (it may be on the
            // primary owner alone), so it is written again until a write of it is.
            MetadataValue<StoredRecord> now = cache.getWithMetadata(key);
            return now != null && now.getValue().ownedBy(owner) && now.getValue().is(RecordState.COMPLETED)
                    && writtenAgain(key, now, lifespanMillis(retention));
        });
    }

    /**
     * See {@link dev.idempotency.spi.IdempotencyStore#markExecuted}.
     *
     * @param key the scoped, hashed key
     * @param owner the owner token returned by {@link #claim}
     * @param lease how long to wait for the outcome before reporting it lost
     * @param retention how long to keep the record if the outcome never comes
     * @return whether the caller owned the in-progress claim, and the record is now EXECUTED (or
     *     already was, marked by this owner: written again, so that every owner of the entry has it)
     */
    public boolean markExecuted(String key, String owner, Duration lease, Duration retention) {
        return call("markExecuted", () -> {
            MetadataValue<StoredRecord> current = cache.getWithMetadata(key);
            if (executedBy(current, owner)) {
                return markedAgain(key, current, retention);
            }
            if (current == null || !current.getValue().ownedBy(owner) || !current.getValue().inProgress()) {
                return false;
            }
            StoredRecord executed = current.getValue().executed();
            // The marker first: an executed record without its marker would read as "outcome lost".
            cache.put(key + DUE_SUFFIX, executed, lifespanMillis(lease), TimeUnit.MILLISECONDS, NO_MAX_IDLE,
                    TimeUnit.MILLISECONDS);
            // On failure the marker stays to expire: it may be another owner's by now.
            if (cache.replaceWithVersion(key, executed, current.getVersion(),
                    lifespanMillis(retention), TimeUnit.MILLISECONDS, NO_MAX_IDLE, TimeUnit.MILLISECONDS)) {
                return true;
            }
            // The client sends a write again whose answer did not come in time (a node stalled past
            // the socket timeout, a topology change): when the first attempt landed, the version it
            // moved refuses the second. Only this owner makes its record EXECUTED.
            MetadataValue<StoredRecord> now = cache.getWithMetadata(key);
            return executedBy(now, owner) && markedAgain(key, now, retention);
        });
    }

    /** @return whether the record read is this owner's, marked executed */
    private static boolean executedBy(MetadataValue<StoredRecord> read, String owner) {
        return read != null && read.getValue().ownedBy(owner) && read.getValue().is(RecordState.EXECUTED);
    }

    /**
     * A mark of this owner found already made (a repeat after a lost answer, or the client's own
     * second attempt): the record is written again, unchanged but for its retention, counted from
     * now. A write that succeeds is on every owner of the entry; the first may have reached only
     * some of them before it failed (a backup that timed out), and a read tells nothing of that.
     */
    private boolean markedAgain(String key, MetadataValue<StoredRecord> executed, Duration retention) {
        return writtenAgain(key, executed, lifespanMillis(retention));
    }

    /**
     * @return whether the record read was written again, unchanged but for its count of rewrites,
     *     with the given lifespan. The Hot Rod server checks the version, then replaces by value
     *     equality: equal bytes written between another caller's two steps (a takeover of the
     *     claim being confirmed) would let that caller's replace succeed too, and both would hold
     *     the claim ({@link StoredRecord#rewritten()}).
     */
    private boolean writtenAgain(String key, MetadataValue<StoredRecord> read, long lifespanMillis) {
        MetadataValue<StoredRecord> current = read;
        for (int attempt = 0; attempt < REWRITE_ATTEMPTS; attempt++) {
            if (cache.replaceWithVersion(key, current.getValue().rewritten(), current.getVersion(),
                    lifespanMillis, TimeUnit.MILLISECONDS, NO_MAX_IDLE, TimeUnit.MILLISECONDS)) {
                return true;
            }
            // The client sends a write again whose answer did not come in time, and a node slow
            // enough to lose one answer may lose the next: when the first attempt landed, the
            // version it moved refuses the second. Landed is not acknowledged (it may be on the
            // primary owner alone, and a read cannot tell): our own rewrite read back is written
            // once more, until one is acknowledged.
            MetadataValue<StoredRecord> now = cache.getWithMetadata(key);
            if (now == null || !now.getValue().isRewriteOf(current.getValue())) {
                return false;
            }
            current = now;
        }
        return false;
    }

    /**
     * See {@link dev.idempotency.spi.IdempotencyStore#release}.
     *
     * @param key the scoped, hashed key
     * @param owner the owner token returned by {@link #claim}
     * @return whether the caller owned the claim, and its record is removed
     */
    public boolean release(String key, String owner) {
        return call("release", () -> {
            MetadataValue<StoredRecord> current = cache.getWithMetadata(key);
            if (!ownedOpen(current, owner)) {
                return false;
            }
            // Refused: the entry changed meanwhile, or is gone. Gone, the owner's record was
            // removed: by this remove, which the client sent again after its answer was lost in a
            // topology change (the second found nothing), or by its expiry; the key is free either way.
            return cache.removeWithVersion(key, current.getVersion()) || cache.get(key) == null;
        });
    }

    /**
     * See {@link dev.idempotency.spi.IdempotencyStore#find}.
     *
     * @param key the scoped, hashed key
     * @return the live record, or empty when there is none or it has expired
     */
    public Optional<IdempotencyRecord> find(String key) {
        return call("find", () -> {
            StoredRecord current = cache.get(key);
            return current == null ? Optional.<IdempotencyRecord>empty() : Optional.of(toRecord(key, current));
        });
    }

    /**
     * See {@link dev.idempotency.spi.IdempotencyStore#inspect}: the times on the server's clock, from
     * the entries' metadata (whole seconds of lifespan): the record's expiry; in progress, when the
     * claim (or takeover) was written and when its lease ends (its creation plus its lease; a
     * previous version's claim: when its owner's lease marker lapses); executed, when its
     * outcome-due marker does. A completed record's claim time is not kept.
     *
     * @param key the scoped, hashed key
     * @return the live record and its times, or empty when there is none or it has expired
     */
    public Optional<RecordDetails> inspect(String key) {
        return call("inspect", () -> {
            MetadataValue<StoredRecord> current = cache.getWithMetadata(key);
            if (current == null) {
                return Optional.<RecordDetails>empty();
            }
            IdempotencyRecord record = toRecord(key, current.getValue());
            Instant leaseEnds = null;
            Instant claimedAt = null;
            if (record.state() == RecordState.IN_PROGRESS) {
                claimedAt = current.getCreated() < 0 ? null : Instant.ofEpochMilli(current.getCreated());
                StoredRecord claim = current.getValue();
                if (claim.leaseInMarker()) {
                    leaseEnds = endOf(cache.getWithMetadata(leaseKey(key, claim.getOwner())));
                } else if (claim.leaseInRecord() && claimedAt != null) {
                    leaseEnds = claimedAt.plusMillis(claim.getLeaseMillis());
                }
            } else if (record.state() == RecordState.EXECUTED) {
                leaseEnds = endOf(cache.getWithMetadata(key + DUE_SUFFIX));
            }
            return Optional.of(new RecordDetails(record, claimedAt, leaseEnds, endOf(current)));
        });
    }

    /** @return when the entry lapses, or {@code null} when it is gone or has no lifespan */
    private static Instant endOf(MetadataValue<?> entry) {
        if (entry == null || entry.getCreated() < 0 || entry.getLifespan() < 0) {
            return null;
        }
        return Instant.ofEpochMilli(entry.getCreated() + entry.getLifespan() * 1000L);
    }

    /**
     * @param duration a lease or retention
     * @return it as a lifespan to write: at least a millisecond (0 would mean the cache's default,
     *     immortal on the cache the store creates), at most {@link #MAX_LIFESPAN_MILLIS}
     */
    static long lifespanMillis(Duration duration) {
        long millis;
        try {
            millis = duration.toMillis();
        } catch (ArithmeticException beyondLong) {
            millis = Long.MAX_VALUE;
        }
        return Math.min(Math.max(millis, 1), MAX_LIFESPAN_MILLIS);
    }

    /** @return the key of one owner's lease marker in a previous version (scoped keys are base64url: no '|') */
    static String leaseKey(String key, String owner) {
        return key + LEASE_INFIX + owner;
    }

    /** @return whether the owner holds the record in progress or executed (not yet completed) */
    private static boolean ownedOpen(MetadataValue<StoredRecord> current, String owner) {
        return current != null && current.getValue().ownedBy(owner)
                && (current.getValue().inProgress() || current.getValue().is(RecordState.EXECUTED));
    }

    private IdempotencyRecord toRecord(String key, StoredRecord record) {
        boolean outcomeDue = record.is(RecordState.EXECUTED) && cache.containsKey(key + DUE_SUFFIX);
        return record.toRecord(key, outcomeDue);
    }

    /** Runs one operation; any client failure (server down, timeout, refused) is the SPI's store failure. */
    private static <T> T call(String operation, Supplier<T> work) {
        try {
            return work.get();
        } catch (IdempotencyStoreException e) {
            throw e;
        } catch (RuntimeException e) {
            if (full(e)) {
                throw new IdempotencyStoreException(operation + " refused: the Infinispan cache is full (it refuses"
                        + " new entries rather than evicting live ones; see idempotency.infinispan.max-entries)", e);
            }
            throw new IdempotencyStoreException(operation + " failed: the Infinispan server did not answer", e);
        }
    }

    /** @return whether the server refused a write because the cache is at its bound (ContainerFullException) */
    private static boolean full(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains("ContainerFullException")) {
                return true;
            }
        }
        return false;
    }
}
