package dev.idempotency.tokens;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Bounds how many tokens one principal is issued on this node: at most {@code max} per window
 * (the token ttl), so that a client cannot fill the store with tokens. Windows are fixed and per
 * principal; expired ones are dropped when the map grows, so memory follows the number of
 * principals active within one window.
 */
public final class TokenIssuanceLimiter {

    /** Above this many principals, expired windows are swept on the next issue. */
    private static final int SWEEP_ABOVE = 10_000;

    private final int max;
    private final long windowNanos;
    private final LongSupplier nanoClock;
    private final ConcurrentHashMap<String, Window> windows = new ConcurrentHashMap<>();
    private final AtomicLong lastSweep;

    private record Window(long start, AtomicInteger issued) {
    }

    /**
     * @param max tokens per principal per window
     * @param window the window
     * @param nanoClock a monotonic clock ({@link System#nanoTime} outside tests)
     */
    public TokenIssuanceLimiter(int max, Duration window, LongSupplier nanoClock) {
        this.max = max;
        this.windowNanos = window.toNanos();
        this.nanoClock = nanoClock;
        this.lastSweep = new AtomicLong(nanoClock.getAsLong());
    }

    /**
     * Whether a token may be issued, with the window that counted it, for {@link #giveBack(Permit)}.
     *
     * @param waitSeconds {@code 0} if a token may be issued now (and was counted); else the seconds
     *     until the principal's window ends
     * @param window the window that counted it
     */
    public record Permit(long waitSeconds, Object window) {
    }

    /**
     * @param principal the principal's name
     * @return whether a token may be issued now (and counts it), and the window that counted it
     */
    public Permit admit(String principal) {
        long now = nanoClock.getAsLong();
        long swept = lastSweep.get();
        // At most one sweep per tenth of a window, by one caller: not one per issue.
        if (windows.size() > SWEEP_ABOVE && now - swept >= windowNanos / 10 && lastSweep.compareAndSet(swept, now)) {
            windows.values().removeIf(w -> now - w.start() >= windowNanos);
        }
        Window window = windows.compute(principal,
                (name, old) -> old == null || now - old.start() >= windowNanos ? new Window(now, new AtomicInteger()) : old);
        if (window.issued().incrementAndGet() <= max) {
            return new Permit(0, window);
        }
        long left = window.start() + windowNanos - now;
        return new Permit(Math.max(1, (left + 999_999_999L) / 1_000_000_000L), window);
    }

    /**
     * Gives back a token {@link #admit} counted but that was never issued (the store could not keep
     * it): a caller retrying through an outage is not refused for the rest of its window. Only to
     * the window that counted it: one that has rolled over since keeps its own count.
     *
     * @param permit what {@link #admit} answered
     */
    public void giveBack(Permit permit) {
        ((Window) permit.window()).issued().decrementAndGet();
    }
}
