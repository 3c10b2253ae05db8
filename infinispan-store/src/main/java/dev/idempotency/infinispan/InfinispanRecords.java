package dev.idempotency.infinispan;

import java.time.Duration;
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
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;

/**
 * The Infinispan store's logic on one remote cache, free of CDI: a claim is one
 * {@code putIfAbsent} (with {@code FORCE_RETURN_VALUE}, so that the loser sees the winner's
 * record) whose lifespan is the lease; completion and release are {@code replaceWithVersion} /
 * {@code removeWithVersion} after an owner check, so only the owner changes its record, and an
 * entry changed in between (a takeover) makes them fail. Every expiry is an entry lifespan, kept
 * by the server's clock.
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

    private final RemoteCache<String, StoredRecord> cache;
    private final RemoteCache<String, StoredRecord> returning;

    /** @param cache the idempotency cache */
    public InfinispanRecords(RemoteCache<String, StoredRecord> cache) {
        this.cache = cache;
        this.returning = cache.withFlags(Flag.FORCE_RETURN_VALUE);
    }

    /** See {@link dev.idempotency.spi.IdempotencyStore#claim}. */
    public ClaimResult claim(String key, String fingerprint, Duration lease) {
        return call("claim", () -> {
            String owner = UUID.randomUUID().toString();
            StoredRecord previous = returning.putIfAbsent(key, StoredRecord.inProgress(fingerprint, owner),
                    lease.toMillis(), TimeUnit.MILLISECONDS);
            // The client retries a write whose answer was lost in a topology change (ISPN006010):
            // finding its own fresh owner token means the first attempt won.
            return previous == null || previous.ownedBy(owner) ? new ClaimResult.Acquired(owner, false)
                    : new ClaimResult.Existing(toRecord(key, previous));
        });
    }

    /** See {@link dev.idempotency.spi.IdempotencyStore#complete}. */
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

    /** See {@link dev.idempotency.spi.IdempotencyStore#markExecuted}. */
    public boolean markExecuted(String key, String owner, Duration lease, Duration retention) {
        return call("markExecuted", () -> {
            MetadataValue<StoredRecord> current = cache.getWithMetadata(key);
            if (current == null || !current.getValue().ownedBy(owner) || !current.getValue().is(RecordState.IN_PROGRESS)) {
                return false;
            }
            StoredRecord executed = current.getValue().executed();
            // The marker first: an executed record without its marker would read as "outcome lost".
            cache.put(key + DUE_SUFFIX, executed, lease.toMillis(), TimeUnit.MILLISECONDS);
            // On failure the marker stays to expire: it may be another owner's by now.
            return cache.replaceWithVersion(key, executed, current.getVersion(),
                    retention.toMillis(), TimeUnit.MILLISECONDS, 0, TimeUnit.MILLISECONDS);
        });
    }

    /** See {@link dev.idempotency.spi.IdempotencyStore#release}. */
    public boolean release(String key, String owner) {
        return call("release", () -> {
            MetadataValue<StoredRecord> current = cache.getWithMetadata(key);
            if (!ownedOpen(current, owner)) {
                return false;
            }
            return cache.removeWithVersion(key, current.getVersion());
        });
    }

    /** See {@link dev.idempotency.spi.IdempotencyStore#find}. */
    public Optional<IdempotencyRecord> find(String key) {
        return call("find", () -> {
            StoredRecord current = cache.get(key);
            return current == null ? Optional.<IdempotencyRecord>empty() : Optional.of(toRecord(key, current));
        });
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
            throw new IdempotencyStoreException(operation + " failed: the Infinispan server did not answer", e);
        }
    }
}
