package dev.idempotency.jpa;

import java.sql.SQLException;
import java.sql.SQLSyntaxErrorException;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import java.util.logging.Level;
import java.util.logging.Logger;

import dev.idempotency.spi.IdempotencyStoreException;

/**
 * The database's current time in UTC, to microseconds: the one clock every lease and expiry is
 * judged by, whatever the nodes' clocks and time zones. Not {@code LOCALTIMESTAMP}: JDBC drivers
 * set the session's time zone from the JVM's, so two nodes in different zones would read times
 * hours apart, and a node in a zone with daylight saving would see leases jump by an hour.
 *
 * <p>SQL has no portable "now in UTC". The first use asks the JDBC connection which database it
 * is (where the JPA provider hands the connection out, as EclipseLink does) and takes that
 * dialect's expression; otherwise it tries each known expression in a transaction of its own and
 * keeps the first one the database accepts. A database that accepts none of them falls back to
 * {@code LOCALTIMESTAMP} with a warning ({@code IDEMP0509}): correct only while every node runs
 * in the same time zone.
 *
 * <p>The database is not asked for every operation: its time is read once a minute and carried
 * forward on this node's monotonic clock ({@link System#nanoTime}), which a wall-clock change
 * does not move. That saves a round trip per claim, completion or look-up; the estimate is off
 * by at most half the reading's round trip plus the two clocks' rate difference over a minute,
 * well under a millisecond, against leases of seconds. The monotonic clock stops while the VM or
 * the machine is suspended: when it and the wall clock have moved more than a second apart since
 * the reading, the next call that may open a transaction (a claim, a release, a look-up) reads
 * the database again at once. A completion or mark inside the caller's transaction never waits
 * for that read (the method it ends may well have been the one suspended). It judges whether its
 * claim is still live with the time that may have fallen behind ({@link #now}: a lease seen
 * alive a little longer, never ended early), and writes the ends it sets (the record's expiry, a
 * mark's lease end) from {@link #notBehind}, the reading carried forward on the wall clock when
 * that moved further by more than a second: a suspend must not shorten a record's retention,
 * which would let its key run again.
 */
final class DatabaseClock {

    private static final Logger LOG = Logger.getLogger(DatabaseClock.class.getName());


    /**
     * UTC now, without a zone, per dialect, as text ({@code 2026-03-08 02:30:00.123456}); the order
     * puts the commonest first, H2 (its expression the standard one, which the others know too, as
     * the transaction's start) last. Text, not a timestamp: the JDBC driver would build a
     * {@link Timestamp} from a timestamp's fields in the JVM's zone, and a UTC wall time inside that
     * zone's spring-forward gap does not exist there: it would be read an hour late (see
     * {@link ZoneGap}).
     */
    static final List<String> UTC_NOW = List.of(
            // the statement's time: CURRENT_TIMESTAMP is the transaction's start, as old as whatever
            // came before in it (the untimed first reading, a pause of the node)
            "SELECT CAST(CAST(clock_timestamp() AT TIME ZONE 'UTC' AS TIMESTAMP) AS VARCHAR(32))", // PostgreSQL
            "SELECT CAST(UTC_TIMESTAMP(6) AS CHAR)", // MariaDB, MySQL
            "SELECT CONVERT(VARCHAR(27), SYSUTCDATETIME(), 121)", // SQL Server
            "SELECT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD HH24:MI:SS.FF6') FROM DUAL", // Oracle
            "SELECT CAST(CAST(CURRENT_TIMESTAMP AT TIME ZONE 'UTC' AS TIMESTAMP) AS VARCHAR(32))"); // H2

    /** The expression per JDBC product name (lower case, "contains"). */
    private static final Map<String, String> BY_PRODUCT = Map.of(
            "postgresql", UTC_NOW.get(0), "h2", UTC_NOW.get(4),
            "mariadb", UTC_NOW.get(1), "mysql", UTC_NOW.get(1),
            "microsoft sql server", UTC_NOW.get(2), "oracle", UTC_NOW.get(3));

    /**
     * SQLStates of SQL a database does not know: class 42 (syntax error or access rule
     * violation), 0A (feature not supported), H2's 90022 (function not found).
     */
    private static final List<String> UNKNOWN_SQL = List.of("42", "0A", "90022");

    static final String SESSION_LOCAL_NOW = "SELECT LOCALTIMESTAMP";

    /** How old a reading may get before the next call that may open a transaction reads again. */
    static final long REFRESH_NANOS = TimeUnit.MINUTES.toNanos(1);

    /**
     * How far this node's monotonic clock and its wall clock may drift apart since a reading
     * before the next call that may open a transaction reads again: the monotonic clock stops while
     * the VM or the machine is suspended, and the time carried on it then falls behind.
     */
    static final long MAX_DRIFT_NANOS = TimeUnit.SECONDS.toNanos(1);

    /**
     * The database's UTC time, and this node's monotonic time (and wall time) in the middle of the
     * round trip that read it.
     */
    private record Reading(LocalDateTime databaseUtc, long nanos, long wallMillis) {
    }

    private final DatabaseProduct product;
    private final LongSupplier nanoClock;
    private final LongSupplier wallClock;
    private final UnaryOperator<LocalDateTime> moved;
    private final AtomicBoolean refreshing = new AtomicBoolean();
    private final AtomicBoolean fallbackLogged = new AtomicBoolean();
    private volatile String query;
    private volatile Reading reading;

    /** @param product the database, shared with the rest of the store */
    DatabaseClock(DatabaseProduct product) {
        this(product, System::nanoTime, System::currentTimeMillis, UnaryOperator.identity());
    }

    /**
     * @param product the database, shared with the rest of the store
     * @param moved applied to each reading of the database's time (tests: to move it elsewhere)
     */
    DatabaseClock(DatabaseProduct product, UnaryOperator<LocalDateTime> moved) {
        this(product, System::nanoTime, System::currentTimeMillis, moved);
    }

    /**
     * @param product the database, shared with the rest of the store
     * @param nanoClock a monotonic clock a test drives (the wall clock follows it: no drift)
     */
    DatabaseClock(DatabaseProduct product, LongSupplier nanoClock) {
        this(product, nanoClock, () -> TimeUnit.NANOSECONDS.toMillis(nanoClock.getAsLong()), UnaryOperator.identity());
    }

    /**
     * @param product the database, shared with the rest of the store
     * @param nanoClock a monotonic clock (tests)
     * @param wallClock a wall clock in milliseconds (tests)
     */
    DatabaseClock(DatabaseProduct product, LongSupplier nanoClock, LongSupplier wallClock) {
        this(product, nanoClock, wallClock, UnaryOperator.identity());
    }

    /** @param nanoClock a monotonic clock (tests) */
    DatabaseClock(LongSupplier nanoClock) {
        this(new DatabaseProduct(), nanoClock);
    }

    /**
     * @param nanoClock a monotonic clock (tests)
     * @param wallClock a wall clock in milliseconds (tests)
     */
    DatabaseClock(LongSupplier nanoClock, LongSupplier wallClock) {
        this(new DatabaseProduct(), nanoClock, wallClock, UnaryOperator.identity());
    }

    private DatabaseClock(DatabaseProduct product, LongSupplier nanoClock, LongSupplier wallClock,
            UnaryOperator<LocalDateTime> moved) {
        this.product = product;
        this.nanoClock = nanoClock;
        this.wallClock = wallClock;
        this.moved = moved;
    }

    /**
     * Makes {@link #now()} ready: chooses the expression and reads the database's time on first
     * use, and reads it again once the reading is older than a minute. Runs in transactions of
     * its own: for calls that may open one.
     *
     * @param transactions where the reads run
     * @throws IdempotencyStoreException when the database does not answer and there is no reading yet
     */
    void resolve(RecordTransactions transactions) {
        chooseExpression(transactions);
        Reading current = reading;
        if (current == null) {
            // no lock: callers that start together each read (in a transaction of the store's own, so
            // within its bound), rather than queue, holding their connections, behind one reading that
            // may wait for a connection itself; any of the readings will do
            reading = read(transactions);
            return;
        }
        if ((nanoClock.getAsLong() - current.nanos() > REFRESH_NANOS || drifted(current))
                && refreshing.compareAndSet(false, true)) {
            try {
                reading = read(transactions);
            } catch (IdempotencyStoreException e) {
                // the previous reading stays exact enough; the operation itself will meet the outage
                LOG.log(Level.FINE, "the database clock could not be read again; the previous reading is kept", e);
            } finally {
                refreshing.set(false);
            }
        }
    }

    /** @return whether the monotonic and the wall clock moved apart since the reading (a suspend, a clock step) */
    private boolean drifted(Reading current) {
        long monotonic = nanoClock.getAsLong() - current.nanos();
        long wall = TimeUnit.MILLISECONDS.toNanos(wallClock.getAsLong() - current.wallMillis());
        return Math.abs(wall - monotonic) > MAX_DRIFT_NANOS;
    }

    /**
     * Like {@link #resolve} on first use only: for calls in the caller's transaction, which must not
     * wait for a transaction of the store's own to refresh a reading that is still exact enough.
     *
     * @param transactions where the first reads run
     */
    void ensureResolved(RecordTransactions transactions) {
        if (reading == null) {
            resolve(transactions);
        }
    }

    /** The expressions whose time is the transaction's start (H2's, the fallback), not the statement's. */
    private static final Set<String> TRANSACTION_START_NOW = Set.of(UTC_NOW.get(4), SESSION_LOCAL_NOW);

    /** Timed round trips of one reading, at most. */
    private static final int MAX_ATTEMPTS = 3;
    /** A round trip this short is kept at once: its error is half of it. */
    private static final long SHORT_ROUND_TRIP_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private Reading read(RecordTransactions transactions) {
        String chosen = query;
        try {
            return transactions.inNewTransaction(em -> {
                // once untimed: the provider takes its connection at the first statement, and a wait
                // for the pool inside the timed round trip would move the estimate by half that wait
                em.createNativeQuery(chosen).getSingleResult();
                // The estimate is off by up to half the round trip: a pause inside it (a collection,
                // the scheduler) would move the node's time of the database by half the pause, for
                // up to a minute. Of a few round trips, the shortest is kept, the first short one at once.
                // Only an expression of the statement's time: one of the transaction's start (H2's,
                // LOCALTIMESTAMP) answers the same time again, which a later round trip would make older.
                int attempts = TRANSACTION_START_NOW.contains(chosen) ? 1 : MAX_ATTEMPTS;
                Reading best = null;
                long shortest = Long.MAX_VALUE;
                for (int attempt = 0; attempt < attempts && shortest > SHORT_ROUND_TRIP_NANOS; attempt++) {
                    long before = nanoClock.getAsLong();
                    long wall = wallClock.getAsLong();
                    LocalDateTime databaseUtc = toLocal(em.createNativeQuery(chosen).getSingleResult());
                    long after = nanoClock.getAsLong();
                    if (databaseUtc == null) {
                        throw new IllegalStateException("the database answered its clock query with nothing");
                    }
                    if (after - before < shortest) {
                        shortest = after - before;
                        best = new Reading(moved.apply(databaseUtc), before + (after - before) / 2,
                                wall + TimeUnit.NANOSECONDS.toMillis((after - before) / 2));
                    }
                }
                return best;
            });
        } catch (RuntimeException e) {
            throw new IdempotencyStoreException("the database did not answer a query for its clock", e);
        }
    }

    /**
     * Chooses the expression on first use, in transactions of its own. A database that does not
     * answer (down, not only refusing an expression it does not know) fails the call fast and
     * leaves the choice for the next one.
     *
     * @param transactions where the probes run
     */
    private void chooseExpression(RecordTransactions transactions) {
        if (query != null) {
            return;
        }
        // no lock, for the reason given in resolve: callers that start together each probe, and all
        // come to the same choice
        String known = forProduct(transactions);
        if (known != null && accepts(transactions, known)) {
            choose(known);
            return;
        }
        for (String candidate : UTC_NOW) {
            if (accepts(transactions, candidate)) {
                choose(candidate);
                return;
            }
        }
        if (!accepts(transactions, SESSION_LOCAL_NOW)) {
            throw new IdempotencyStoreException("the database knows none of " + UTC_NOW + " nor " + SESSION_LOCAL_NOW, null);
        }
        if (fallbackLogged.compareAndSet(false, true)) {
            LOG.warning(JpaMessages.clockFallsBackToLocalTime(UTC_NOW));
        }
        query = SESSION_LOCAL_NOW;
    }

    private void choose(String expression) {
        LOG.fine(() -> JpaMessages.clockExpression(expression));
        query = expression;
    }

    /** @return the known expression for the database's product, or null when it cannot tell */
    private String forProduct(RecordTransactions transactions) {
        String name = product.name(transactions);
        if (name == null) {
            return null;
        }
        return BY_PRODUCT.entrySet().stream().filter(entry -> name.contains(entry.getKey()))
                .map(Map.Entry::getValue).findFirst().orElse(null);
    }

    /**
     * @return whether the database runs the expression; false only when it refuses it as SQL it
     *     does not know (see {@link #UNKNOWN_SQL}) or answers a text the store does not read
     * @throws IdempotencyStoreException when it fails for any other reason (the database is
     *     down, the pool is exhausted): then nothing is chosen, and the next call tries again
     */
    private static boolean accepts(RecordTransactions transactions, String candidate) {
        try {
            return toLocal(transactions.inNewTransaction(em -> em.createNativeQuery(candidate).getSingleResult())) != null;
        } catch (DateTimeParseException e) {
            // it knows the expression but writes its times in another form (another date style)
            LOG.log(Level.FINE, "the database answers " + candidate + " in a form the store does not read", e);
            return false;
        } catch (RuntimeException e) {
            if (unknownSql(e)) {
                LOG.log(Level.FINE, "the database does not know " + candidate, e);
                return false;
            }
            throw new IdempotencyStoreException("the database did not answer a query for its clock", e);
        }
    }

    static boolean unknownSql(Throwable failure) {
        return Causes.find(failure, cause -> cause instanceof SQLSyntaxErrorException
                || (cause instanceof SQLException sql && sql.getSQLState() != null
                        && UNKNOWN_SQL.stream().anyMatch(sql.getSQLState()::startsWith))).isPresent();
    }

    /**
     * @return the database's time now, in UTC: the last reading plus the time elapsed since on
     *     this node's monotonic clock (after {@link #resolve})
     */
    LocalDateTime now() {
        Reading current = reading;
        if (current == null) {
            throw new IllegalStateException("the database clock is read before it was resolved");
        }
        return current.databaseUtc().plusNanos(nanoClock.getAsLong() - current.nanos());
    }

    /**
     * @param now a time {@link #now} gave this call: the ends it writes are counted from it, so that
     *     a lease written is exactly as long as asked
     * @return {@code now}, unless the wall clock moved further than the monotonic clock since the
     *     reading by more than {@link #MAX_DRIFT_NANOS}: then {@code now} moved on by that
     *     difference. For the ends a claim, a completion or a mark writes without reading the
     *     database again. The monotonic clock stood still through a suspend, and an end written
     *     from it would come early by the suspend's length, freeing the key before its retention
     *     ended. Below a second the two clocks are not told apart (the wall clock's millisecond
     *     steps, its adjustments): a shorter suspend may end a lease that much early. A wall clock
     *     stepped forward instead keeps a record longer than asked, until the next reading; never
     *     shorter. Never before the latest reading's time either: a {@code now} taken from an
     *     older reading (a call that lost the race to read again after a suspend, while another
     *     read) shows no drift against the fresh one, and would be behind by the whole suspend.
     */
    LocalDateTime notBehind(LocalDateTime now) {
        Reading current = reading;
        if (current == null) {
            throw new IllegalStateException("the database clock is read before it was resolved");
        }
        LocalDateTime base = now.isBefore(current.databaseUtc()) ? current.databaseUtc() : now;
        long monotonic = nanoClock.getAsLong() - current.nanos();
        long wall = TimeUnit.MILLISECONDS.toNanos(wallClock.getAsLong() - current.wallMillis());
        return wall - monotonic > MAX_DRIFT_NANOS ? base.plusNanos(wall - monotonic) : base;
    }

    private static LocalDateTime toLocal(Object value) {
        if (value instanceof String text) {
            // "yyyy-MM-dd HH:mm:ss[.fraction]" as every dialect above writes it
            return LocalDateTime.parse(text.trim().replace(' ', 'T'));
        }
        if (value instanceof LocalDateTime local) {
            return local;
        }
        if (value instanceof Timestamp timestamp) {
            // a zone-less value: the driver built it from the wall-clock fields, so read them back
            return timestamp.toLocalDateTime();
        }
        if (value instanceof OffsetDateTime offset) {
            return offset.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
        }
        if (value == null) {
            return null;
        }
        throw new IllegalStateException("the database answered its clock query with a " + value.getClass().getName());
    }
}
