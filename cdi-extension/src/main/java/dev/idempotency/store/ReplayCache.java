package dev.idempotency.store;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;

/**
 * Completed records this node has read from a remote store, kept for a short while so that the
 * next retries of the same key are answered without a round trip. Safe because a completed record
 * never changes: its fingerprint and outcome are final until its retention ends. The one
 * difference it makes is at that end: a node may still replay a key for up to the cache's ttl
 * after the store let it expire. Only {@link RecordState#COMPLETED} records are kept; in-progress,
 * executed and lost ones always go to the store.
 *
 * <p>Bounded by bytes (an estimate of each record's heap), oldest first out; an entry lives for
 * the cache's ttl or the endpoint's retention, whichever is shorter, by this JVM's monotonic
 * clock. One lock: every operation is a map look-up or insertion, far shorter than the round trip
 * it saves.
 */
public final class ReplayCache {

    /** What a record costs besides its key, fingerprint, headers and body: objects and references. */
    static final int ENTRY_OVERHEAD = 320;

    private record Entry(IdempotencyRecord record, long expiresAtNanos, long bytes) {
    }

    private final long maxBytes;
    private final long ttlNanos;
    private final LongSupplier nanoClock;
    private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>();
    private long bytes;

    /**
     * @param maxBytes the most heap its records may take; 0 turns the cache off
     * @param ttl how long a record is kept at most; zero turns the cache off
     * @param nanoClock a monotonic clock, in nanoseconds
     */
    public ReplayCache(long maxBytes, Duration ttl, LongSupplier nanoClock) {
        boolean off = maxBytes <= 0 || ttl.isZero() || ttl.isNegative();
        this.maxBytes = off ? 0 : maxBytes;
        this.ttlNanos = off ? 0 : ttl.toNanos();
        this.nanoClock = nanoClock;
    }

    /** @return a cache that keeps nothing (a store whose records are in this JVM already) */
    public static ReplayCache off() {
        return new ReplayCache(0, Duration.ZERO, System::nanoTime);
    }

    /** @return whether it keeps anything */
    public boolean enabled() {
        return maxBytes > 0;
    }

    /**
     * @param key the scoped, hashed key
     * @return the completed record kept for it, or {@code null}
     */
    public IdempotencyRecord find(String key) {
        if (maxBytes == 0) {
            return null;
        }
        synchronized (entries) {
            Entry entry = entries.get(key);
            if (entry == null) {
                return null;
            }
            if (nanoClock.getAsLong() - entry.expiresAtNanos >= 0) {
                entries.remove(key);
                bytes -= entry.bytes;
                return null;
            }
            return entry.record;
        }
    }

    /**
     * Keeps a record read from the store, if it is completed and small enough.
     *
     * @param record the record
     * @param retention the endpoint's retention: a record is never kept longer
     */
    public void remember(IdempotencyRecord record, Duration retention) {
        if (maxBytes == 0 || record.state() != RecordState.COMPLETED) {
            return;
        }
        long size = estimate(record);
        if (size > maxBytes / 16) {
            return; // one large answer may not push out many small ones
        }
        Entry entry = new Entry(record, nanoClock.getAsLong() + Math.min(ttlNanos, retention.toNanos()), size);
        synchronized (entries) {
            Entry previous = entries.put(record.key(), entry);
            bytes += size - (previous == null ? 0 : previous.bytes);
            Iterator<Entry> oldestFirst = entries.values().iterator();
            while (bytes > maxBytes && oldestFirst.hasNext()) {
                bytes -= oldestFirst.next().bytes;
                oldestFirst.remove();
            }
        }
    }

    /** @return the records kept (expired ones included until looked up or pushed out) */
    public int size() {
        synchronized (entries) {
            return entries.size();
        }
    }

    /** @return the estimated heap of the records kept */
    public long bytes() {
        synchronized (entries) {
            return bytes;
        }
    }

    static long estimate(IdempotencyRecord record) {
        StoredOutcome outcome = record.outcome();
        long size = ENTRY_OVERHEAD + 2L * (record.key().length() + record.fingerprint().length()) + outcome.bodyLength();
        for (Map.Entry<String, List<String>> header : outcome.headers().entrySet()) {
            size += 64 + 2L * header.getKey().length();
            for (String value : header.getValue()) {
                size += 48 + 2L * value.length();
            }
        }
        return size;
    }
}
