package dev.idempotency.jpa;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.LocalDateTime;

/**
 * Times the JPA provider binds as they are, on a node whose JVM runs in a zone with daylight
 * saving. The store keeps UTC wall times, and EclipseLink 4 and Hibernate 6 bind a
 * {@code LocalDateTime} through {@link Timestamp#valueOf(LocalDateTime)}, whose fields are taken
 * in the JVM's default zone: a UTC wall time inside that zone's spring-forward gap (02:30 on the
 * night New York's clocks jump from 02:00 to 03:00) does not exist there, and reaches the database
 * an hour later. A "now" bound an hour late would end live leases and retentions early, and let a
 * key run again; so a time that would move is moved out of the gap on the side where the store
 * errs safely: "now" to before the gap, an end (of a lease, of a retention) to after it. For that
 * hour a year, on such nodes, records live up to an hour longer than asked, never shorter.
 *
 * <p>Only the provider's binding needs this: the statements the store runs itself on JDBC bind
 * with {@code setObject}, which takes the wall time as it is, and the database's clock is read as
 * text ({@link DatabaseClock}). A time the provider reads back from inside the gap comes out later
 * as well, which again errs on the side of keeping a record. A node on UTC (or any zone without
 * daylight saving) binds every time as it is.
 */
final class ZoneGap {

    private ZoneGap() {
    }

    /**
     * @param now the database's time
     * @return {@code now}, or a time before the gap when the provider would bind it later
     */
    static LocalDateTime notAfter(LocalDateTime now) {
        Duration moved = movedBy(now);
        // the gap is as long as the move: that far back lies before it
        return moved.isZero() ? now : now.minus(moved.abs());
    }

    /**
     * @param end when a lease or a retention ends
     * @return {@code end}, or a time after the gap when the provider would bind it elsewhere
     */
    static LocalDateTime notBefore(LocalDateTime end) {
        Duration moved = movedBy(end);
        return moved.isZero() ? end : end.plus(moved.abs());
    }

    /** @return how far the provider's binding moves the time: zero outside the JVM zone's gap */
    private static Duration movedBy(LocalDateTime time) {
        LocalDateTime bound = Timestamp.valueOf(time).toLocalDateTime();
        return bound.equals(time) ? Duration.ZERO : Duration.between(time, bound);
    }
}
