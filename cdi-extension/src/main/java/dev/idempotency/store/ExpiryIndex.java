package dev.idempotency.store;

import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;

/**
 * When the in-memory store's records are due for a look, in one-second buckets, so that a sweep
 * visits the records that may have expired instead of every live one. Walking the whole map once
 * a second cost the HTTP first executions 12 % of the request threads' samples with about a million
 * live records (a JFR profile of the in-memory HTTP benchmark, 2026-12-05).
 *
 * <p>What is filed is a {@link Ticket}: a record carries the ticket that stands for it, a new one
 * when it is a new record (or expires sooner than the one it replaces), else its predecessor's.
 * When a ticket's bucket comes due the store looks at the key's current record: a record whose
 * ticket this is gets removed if it expired, else the ticket is filed again for its next look; a
 * ticket whose record is gone or has another ticket is dropped. So each live record has one ticket
 * filed no later than it expires, and a ticket outlives its record by at most the time it was filed
 * for.
 *
 * <p>Times are the store's monotonic clock, counted from the index's origin so that they compare
 * as plain numbers.
 */
final class ExpiryIndex {

    private static final long BUCKET_NANOS = 1_000_000_000L;

    private final long origin;
    private final ConcurrentSkipListMap<Long, Bucket> buckets = new ConcurrentSkipListMap<>();
    /** The bucket filed into last: most claims of a second fall due in the same one. */
    private volatile Bucket recent;

    /** A record's place in the index: which key to look at when it comes due. */
    static final class Ticket {
        final String key;

        Ticket(String key) {
            this.key = key;
        }
    }

    /** The tickets due within one second. */
    private static final class Bucket {
        final long number;
        final Queue<Ticket> tickets = new ConcurrentLinkedQueue<>();
        /** Set once a sweep took the bucket out of the index, before it walks the tickets. */
        volatile boolean taken;

        Bucket(long number) {
            this.number = number;
        }
    }

    /** @param origin a time of the store's clock, at or before every time filed and every sweep */
    ExpiryIndex(long origin) {
        this.origin = origin;
    }

    /**
     * Files a ticket to be looked at once {@code dueNanos} has passed (within a second after), from
     * a claim or a change of a record.
     *
     * @param ticket the record's ticket
     * @param dueNanos a time on the store's clock
     */
    void file(Ticket ticket, long dueNanos) {
        file(ticket, dueNanos, true);
    }

    /**
     * Files again a ticket a sweep looked at, without taking the place of the bucket the claims
     * file into.
     *
     * @param ticket the record's ticket
     * @param dueNanos a time on the store's clock, after the sweep's
     */
    void refile(Ticket ticket, long dueNanos) {
        file(ticket, dueNanos, false);
    }

    private void file(Ticket ticket, long dueNanos, boolean remember) {
        long number = bucketOf(dueNanos);
        while (true) {
            Bucket bucket = recent;
            if (bucket == null || bucket.number != number || bucket.taken) {
                bucket = buckets.computeIfAbsent(number, Bucket::new);
                if (remember) {
                    recent = bucket;
                }
            }
            bucket.tickets.add(ticket);
            // Not taken after the add: the sweep that takes it walks it later and finds the ticket.
            // Taken: that sweep may have walked it already, so file again (a ticket looked at twice
            // is harmless; one never looked at again would leak its record).
            if (!bucket.taken) {
                return;
            }
        }
    }

    /**
     * Takes every bucket that ended at or before {@code now} and gives each of its tickets to
     * {@code due}, which may file tickets again (in later buckets).
     *
     * @param now the store's clock
     * @param due what to do with a ticket whose bucket came due
     */
    void takeDue(long now, Consumer<Ticket> due) {
        long current = bucketOf(now);
        Map.Entry<Long, Bucket> next;
        while ((next = buckets.firstEntry()) != null && next.getKey() < current) {
            Bucket bucket = next.getValue();
            if (buckets.remove(next.getKey(), bucket)) {
                bucket.taken = true;
                bucket.tickets.forEach(due);
            }
        }
    }

    /** @return how many tickets are filed (walks every bucket: for tests) */
    long filed() {
        return buckets.values().stream().mapToLong(bucket -> bucket.tickets.size()).sum();
    }

    /**
     * @return the bucket of a time; a time further from the origin than the clock's range (a
     *     retention of about 292 years, or one that long minus the store's uptime) is in the last
     *     bucket, never due, instead of wrapping round into the past, where a sweep would take it
     *     and file it again forever
     */
    private long bucketOf(long nanos) {
        long sinceOrigin = nanos - origin;
        return sinceOrigin < 0 ? Long.MAX_VALUE : sinceOrigin / BUCKET_NANOS;
    }
}
