package dev.idempotency.infinispan;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
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

/**
 * The Infinispan store's logic on one remote cache, free of CDI. Every expiry is an entry
 * lifespan, kept by the server's clock; no application node's clock is ever compared.
 *
 * <p><b>Entries.</b> The record {@code key} (a {@link StoredRecord}) is the only thing that says
 * who owns a key; a claim keeps it for {@code max(lease, retention)}, so an abandoned claim binds
 * the key to its fingerprint until its retention ends. Each claimer's lease is an entry of its
 * own, {@code key|lease|<owner token>}, with the lease as its lifespan: while it exists, that
 * owner's lease lasts. Owner tokens are fresh UUIDs, so a lease marker is written once, by its
 * owner only, and never again: once gone (expired), that owner's lease is over for good. Markers
 * are never removed, only expired; a marker whose token no record names means nothing.
 *
 * <p><b>Claim.</b> (1) {@code put} the claimer's own lease marker; (2) {@code putIfAbsent} the
 * record (with {@code FORCE_RETURN_VALUE}, so that the loser sees the winner's record): no
 * previous record, or one with the claimer's own token (the client retried the write after a
 * topology change and the first attempt won), means acquired. Otherwise the previous record is
 * the answer ({@link ClaimResult.Existing}) unless it is IN_PROGRESS with the <em>same</em>
 * fingerprint and its owner's lease marker is gone: then {@code getWithMetadata} and a
 * {@code replaceWithVersion} of that very version (still that owner, still in progress) to the
 * claimer's record is a takeover. A claim with another fingerprint never takes over.
 *
 * <p><b>Why one key is never acquired twice.</b> Acquiring means writing the record with one's
 * own token: either {@code putIfAbsent} on a missing record (atomic on the key's primary owner:
 * one winner) or {@code replaceWithVersion} from the version read (compare-and-set: of many
 * takers of one version, one wins). So each version of the record has at most one successor
 * owner. A takeover happens only when the current owner's marker is absent; since every
 * claimer writes its marker <em>before</em> its record can exist, an absent marker cannot mean
 * "not written yet": it means that owner's lease ran out, and it cannot come back (its token is
 * never reused), so the version check alone keeps the decision valid until the replace. Nobody
 * deletes another owner's marker, so no interleaving of releases, completions or retries can cut
 * a live lease short.
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
 */
public final class InfinispanRecords {

    /** Scoped keys are base64url: they never contain this. */
    static final String DUE_SUFFIX = "|due";
    /** Followed by the owner token: that owner's lease marker. */
    static final String LEASE_INFIX = "|lease|";
    /** Takeover attempts of one claim when the record keeps changing under it; then it answers in progress. */
    private static final int MAX_TAKEOVER_ROUNDS = 3;

    private final RemoteCache<String, StoredRecord> cache;
    private final RemoteCache<String, StoredRecord> returning;

    /** @param cache the idempotency cache */
    public InfinispanRecords(RemoteCache<String, StoredRecord> cache) {
        this.cache = cache;
        this.returning = cache.withFlags(Flag.FORCE_RETURN_VALUE);
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
            String owner = UUID.randomUUID().toString();
            StoredRecord claimed = StoredRecord.inProgress(fingerprint, owner);
            long keptMillis = Math.max(lease.toMillis(), retention.toMillis());
            // The lease before the record: a record whose owner has no marker is then always one
            // whose lease ran out, never one whose marker is still to come. A plain put: the key is
            // this claim's own, so a retried write is harmless. Left to expire if we do not acquire.
            try {
                cache.put(leaseKey(key, owner), claimed, lease.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RuntimeException refused) {
                // A bounded cache that is full refuses new entries instead of evicting: a key that has
                // a record still answers with it (replays go on), a new key fails (503, nothing runs).
                return existingOrThrow(key, refused);
            }
            StoredRecord previous = returning.putIfAbsent(key, claimed, keptMillis, TimeUnit.MILLISECONDS);
            // The client retries a write whose answer was lost in a topology change (ISPN006010):
            // finding its own fresh owner token means the first attempt won.
            if (previous == null || previous.ownedBy(owner)) {
                return new ClaimResult.Acquired(owner, false);
            }
            return takeOverOrFind(key, fingerprint, claimed, keptMillis, previous);
        });
    }

    /**
     * A claim that found a record: takes it over when it is the same request's and its owner's
     * lease ran out (its marker is gone), else reports it.
     */
    private ClaimResult takeOverOrFind(String key, String fingerprint, StoredRecord claimed, long keptMillis,
            StoredRecord found) {
        StoredRecord seen = found;
        for (int round = 0; ; round++) {
            if (seen == null || seen.ownedBy(claimed.getOwner())) {
                // gone meanwhile (released, expired): a free key; ours: a retried write of ours won
                StoredRecord previous = seen == null
                        ? returning.putIfAbsent(key, claimed, keptMillis, TimeUnit.MILLISECONDS) : seen;
                if (previous == null || previous.ownedBy(claimed.getOwner())) {
                    return new ClaimResult.Acquired(claimed.getOwner(), seen != null);
                }
                seen = previous;
            }
            if (!seen.inProgressFor(fingerprint) || round >= MAX_TAKEOVER_ROUNDS
                    || cache.containsKey(leaseKey(key, seen.getOwner()))) {
                return new ClaimResult.Existing(toRecord(key, seen));
            }
            // Its owner's lease is over for good (a marker is never written again): take over that
            // owner's record, and only the version read, so that of many takers one wins.
            MetadataValue<StoredRecord> current = cache.getWithMetadata(key);
            if (current != null && current.getValue().ownedBy(seen.getOwner())
                    && current.getValue().is(RecordState.IN_PROGRESS)) {
                if (cache.replaceWithVersion(key, claimed, current.getVersion(),
                        keptMillis, TimeUnit.MILLISECONDS, 0, TimeUnit.MILLISECONDS)) {
                    return new ClaimResult.Acquired(claimed.getOwner(), true);
                }
                current = cache.getWithMetadata(key); // another taker won, or a retry of ours did
            }
            seen = current == null ? null : current.getValue();
        }
    }

    /**
     * A claim whose lease marker could not be written: it cannot acquire, so the record, if any,
     * is its answer (as for a claim that lost the {@code putIfAbsent}); else the failure stands.
     */
    private ClaimResult existingOrThrow(String key, RuntimeException refused) {
        StoredRecord existing;
        try {
            existing = cache.get(key);
        } catch (RuntimeException e) {
            refused.addSuppressed(e);
            throw refused;
        }
        if (existing == null) {
            throw refused;
        }
        return new ClaimResult.Existing(toRecord(key, existing));
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
            return cache.replaceWithVersion(key, current.getValue().completed(outcome), current.getVersion(),
                    retention.toMillis(), TimeUnit.MILLISECONDS, 0, TimeUnit.MILLISECONDS);
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
            if (current == null || !current.getValue().ownedBy(owner)) {
                return false;
            }
            if (current.getValue().is(RecordState.EXECUTED)) {
                return markedAgain(key, current, retention);
            }
            if (!current.getValue().is(RecordState.IN_PROGRESS)) {
                return false;
            }
            StoredRecord executed = current.getValue().executed();
            // The marker first: an executed record without its marker would read as "outcome lost".
            cache.put(key + DUE_SUFFIX, executed, lease.toMillis(), TimeUnit.MILLISECONDS);
            // On failure the marker stays to expire: it may be another owner's by now.
            if (cache.replaceWithVersion(key, executed, current.getVersion(),
                    retention.toMillis(), TimeUnit.MILLISECONDS, 0, TimeUnit.MILLISECONDS)) {
                return true;
            }
            // The client sends a write again whose answer did not come in time (a node stalled past
            // the socket timeout, a topology change): when the first attempt landed, the version it
            // moved refuses the second. Only this owner makes its record EXECUTED.
            MetadataValue<StoredRecord> now = cache.getWithMetadata(key);
            return now != null && now.getValue().ownedBy(owner) && now.getValue().is(RecordState.EXECUTED)
                    && markedAgain(key, now, retention);
        });
    }

    /**
     * A mark of this owner found already made (a repeat after a lost answer, or the client's own
     * second attempt): the record is written again, unchanged but for its retention, counted from
     * now. A write that succeeds is on every owner of the entry; the first may have reached only
     * some of them before it failed (a backup that timed out), and a read tells nothing of that.
     */
    private boolean markedAgain(String key, MetadataValue<StoredRecord> executed, Duration retention) {
        return cache.replaceWithVersion(key, executed.getValue(), executed.getVersion(),
                retention.toMillis(), TimeUnit.MILLISECONDS, 0, TimeUnit.MILLISECONDS);
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
            return cache.removeWithVersion(key, current.getVersion());
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
     * claim (or takeover) was written and when its owner's lease marker lapses; executed, when its
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
                leaseEnds = endOf(cache.getWithMetadata(leaseKey(key, current.getValue().getOwner())));
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

    /** @return the key of one owner's lease marker (scoped keys are base64url: no '|') */
    static String leaseKey(String key, String owner) {
        return key + LEASE_INFIX + owner;
    }

    /** @return whether the owner holds the record in progress or executed (not yet completed) */
    private static boolean ownedOpen(MetadataValue<StoredRecord> current, String owner) {
        return current != null && current.getValue().ownedBy(owner)
                && (current.getValue().is(RecordState.IN_PROGRESS) || current.getValue().is(RecordState.EXECUTED));
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
