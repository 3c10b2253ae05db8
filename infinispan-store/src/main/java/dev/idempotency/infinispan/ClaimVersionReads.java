package dev.idempotency.infinispan;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.infinispan.client.hotrod.MetadataValue;

/**
 * The read an owner-checked completion needs (the record's version), started as soon as a fresh
 * claim's write is acknowledged, so that its round trip overlaps the caller's work (the rest of
 * the request, the method, the answer's writing) instead of following it. The completion takes
 * it by the claim's owner token; a read not taken (the claim released, marked, or never ended on
 * this node, as a 5xx of an async endpoint leaves its claim to its lease) is dropped.
 *
 * <p>Only an optimisation: the read is sent after the claim's write was acknowledged, so it sees
 * that write or a later one; the completion's {@code replaceWithVersion} of the version read
 * succeeds only if the entry has not changed since, and any other answer makes the completion
 * read again, as without it. Bounded: at most {@value #MAX} reads wait for their claims; when
 * that many wait, reads older than a minute are dropped, and a claim beyond the bound has its
 * completion read at its end.
 */
final class ClaimVersionReads {

    static final int MAX = 10_000;
    private static final long STALE_NANOS = TimeUnit.MINUTES.toNanos(1);
    /** A full table is swept at most this often: each sweep walks every waiting read. */
    private static final long SWEEP_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private record Pending(CompletableFuture<MetadataValue<StoredRecord>> read, long startedNanos) {
    }

    private final ConcurrentHashMap<String, Pending> byOwner = new ConcurrentHashMap<>();
    private final LongSupplier nanoTime;
    private volatile long lastSweepNanos;

    ClaimVersionReads() {
        this(System::nanoTime);
    }

    /** @param nanoTime the monotonic clock that ages waiting reads */
    ClaimVersionReads(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.lastSweepNanos = nanoTime.getAsLong() - SWEEP_INTERVAL_NANOS;
    }

    /**
     * @param owner the fresh claim's owner token
     * @param read sends the read of the claim's record with its metadata
     */
    void start(String owner, Supplier<CompletableFuture<MetadataValue<StoredRecord>>> read) {
        if (byOwner.size() >= MAX && !roomAfterDroppingStale()) {
            return;
        }
        CompletableFuture<MetadataValue<StoredRecord>> sent;
        try {
            sent = read.get();
        } catch (RuntimeException e) {
            return; // the claim is acquired all the same: its completion reads at its end
        }
        byOwner.put(owner, new Pending(sent, nanoTime.getAsLong()));
    }

    /**
     * @param owner a claim's owner token
     * @return the record as the read started for that claim found it (waiting for it if need be),
     *     or {@code null} when none was started, it failed, or it found no record: the caller
     *     reads again
     */
    MetadataValue<StoredRecord> take(String owner) {
        Pending pending = byOwner.remove(owner);
        if (pending == null) {
            return null;
        }
        try {
            return pending.read().join();
        } catch (CompletionException | CancellationException e) {
            return null; // the completion's own read reports the failure, if it persists
        }
    }

    /** @param owner a claim that ends without its read (released, or marked executed) */
    void drop(String owner) {
        byOwner.remove(owner);
    }

    /** @return how many reads wait for their claims */
    int waiting() {
        return byOwner.size();
    }

    private boolean roomAfterDroppingStale() {
        long now = nanoTime.getAsLong();
        if (now - lastSweepNanos < SWEEP_INTERVAL_NANOS) {
            return false;
        }
        lastSweepNanos = now;
        byOwner.values().removeIf(pending -> now - pending.startedNanos() > STALE_NANOS);
        return byOwner.size() < MAX;
    }
}
