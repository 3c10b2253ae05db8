package dev.idempotency.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Logs a message that can recur on every request (the store is down, the in-memory store is
 * full) at most once per interval per distinct message, so that an outage or a flood of keys
 * cannot flood the server log with one stack trace per request. The first occurrence in each
 * interval is logged with its cause; the ones left out are counted, and the next record says how
 * many there were.
 */
public final class ThrottledLog {

    private final Logger logger;
    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private final ConcurrentHashMap<String, Window> windows = new ConcurrentHashMap<>();

    /** One message's current interval: when it started and how many were left out since. */
    private static final class Window {
        final long start;
        final AtomicLong suppressed = new AtomicLong();

        Window(long start) {
            this.start = start;
        }
    }

    /**
     * @param logger where the records go
     * @param intervalSeconds the shortest time between two records of one message
     * @param nanoClock a monotonic clock ({@link System#nanoTime} outside tests)
     */
    public ThrottledLog(Logger logger, long intervalSeconds, LongSupplier nanoClock) {
        this.logger = logger;
        this.intervalNanos = intervalSeconds * 1_000_000_000L;
        this.nanoClock = nanoClock;
    }

    /**
     * Logs the message unless it was logged less than an interval ago; then it is only counted.
     *
     * @param level the level
     * @param message the message; equal messages share one interval (keep them free of per-request data)
     * @param cause the cause, or null
     */
    public void log(Level level, String message, Throwable cause) {
        if (!logger.isLoggable(level)) {
            return;
        }
        long now = nanoClock.getAsLong();
        Window current = windows.get(message);
        if (current != null && now - current.start < intervalNanos) {
            current.suppressed.incrementAndGet();
            return;
        }
        Window next = new Window(now);
        boolean won = current == null ? windows.putIfAbsent(message, next) == null : windows.replace(message, current, next);
        if (!won) {
            Window other = windows.get(message);
            if (other != null) {
                other.suppressed.incrementAndGet();
            }
            return;
        }
        long leftOut = current == null ? 0 : current.suppressed.get();
        LogRecord record = new LogRecord(level, leftOut == 0 ? message
                : message + " (" + leftOut + " more like this were not logged in the last " + intervalNanos / 1_000_000_000L
                        + " s)");
        record.setThrown(cause);
        record.setLoggerName(logger.getName());
        logger.log(record);
    }
}
