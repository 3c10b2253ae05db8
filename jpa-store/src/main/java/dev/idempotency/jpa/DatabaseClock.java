package dev.idempotency.jpa;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLSyntaxErrorException;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

import jakarta.persistence.EntityManager;

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
 * keeps the first one the database accepts. Later calls run only the chosen one. A database that accepts none of them falls back to {@code LOCALTIMESTAMP} with a
 * warning ({@code IDEMP0509}): correct only while every node runs in the same time zone.
 */
final class DatabaseClock {

    private static final Logger LOG = Logger.getLogger(DatabaseClock.class.getName());

    /** UTC now, without a zone, per dialect; the order puts the commonest first. */
    static final List<String> UTC_NOW = List.of(
            "SELECT CAST(CURRENT_TIMESTAMP AT TIME ZONE 'UTC' AS TIMESTAMP)", // PostgreSQL, H2
            "SELECT UTC_TIMESTAMP(6)", // MariaDB, MySQL
            "SELECT SYSUTCDATETIME()", // SQL Server
            "SELECT SYS_EXTRACT_UTC(SYSTIMESTAMP) FROM DUAL"); // Oracle

    /** The expression per JDBC product name (lower case, "contains"). */
    private static final Map<String, String> BY_PRODUCT = Map.of(
            "postgresql", UTC_NOW.get(0), "h2", UTC_NOW.get(0),
            "mariadb", UTC_NOW.get(1), "mysql", UTC_NOW.get(1),
            "microsoft sql server", UTC_NOW.get(2), "oracle", UTC_NOW.get(3));

    /**
     * SQLStates of SQL a database does not know: class 42 (syntax error or access rule
     * violation), 0A (feature not supported), H2's 90022 (function not found).
     */
    private static final List<String> UNKNOWN_SQL = List.of("42", "0A", "90022");

    static final String SESSION_LOCAL_NOW = "SELECT LOCALTIMESTAMP";

    private volatile String query;

    /**
     * Chooses the expression on first use, in transactions of its own. A database that does not
     * answer (down, not only refusing an expression it does not know) fails the call fast and
     * leaves the choice for the next one.
     *
     * @param transactions where the probes run
     */
    void resolve(RecordTransactions transactions) {
        if (query != null) {
            return;
        }
        synchronized (this) {
            if (query != null) {
                return;
            }
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
            LOG.warning("IDEMP0509: the database accepted none of " + UTC_NOW + "; the JPA store falls back to "
                    + "LOCALTIMESTAMP, which follows each connection's time zone: run every node in the same time zone");
            query = SESSION_LOCAL_NOW;
        }
    }

    private void choose(String expression) {
        LOG.fine(() -> "IDEMP0508: the JPA store reads the database's clock with " + expression);
        query = expression;
    }

    /** @return the known expression for the database's product, or null when it cannot tell */
    private static String forProduct(RecordTransactions transactions) {
        try {
            String product = transactions.inNewTransaction(em -> {
                try {
                    return em.unwrap(Connection.class).getMetaData().getDatabaseProductName();
                } catch (SQLException e) {
                    return null;
                }
            });
            if (product == null) {
                return null;
            }
            String name = product.toLowerCase(Locale.ROOT);
            return BY_PRODUCT.entrySet().stream().filter(entry -> name.contains(entry.getKey()))
                    .map(Map.Entry::getValue).findFirst().orElse(null);
        } catch (RuntimeException providerKeepsItsConnection) {
            return null;
        }
    }

    /**
     * @return whether the database runs the expression; false only when it refuses it as SQL it
     *     does not know (see {@link #UNKNOWN_SQL})
     * @throws IdempotencyStoreException when it fails for any other reason (the database is
     *     down, the pool is exhausted): then nothing is chosen, and the next call tries again
     */
    private static boolean accepts(RecordTransactions transactions, String candidate) {
        try {
            return toLocal(transactions.inNewTransaction(em -> em.createNativeQuery(candidate).getSingleResult())) != null;
        } catch (RuntimeException e) {
            if (unknownSql(e)) {
                LOG.log(Level.FINE, "the database does not know " + candidate, e);
                return false;
            }
            throw new IdempotencyStoreException("the database did not answer a query for its clock", e);
        }
    }

    static boolean unknownSql(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof SQLSyntaxErrorException) {
                return true;
            }
            if (cause instanceof SQLException sql && sql.getSQLState() != null && UNKNOWN_SQL.stream().anyMatch(
                    sql.getSQLState()::startsWith)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param em the transaction's entity manager
     * @return the database's time now, in UTC (after {@link #resolve})
     */
    LocalDateTime now(EntityManager em) {
        String chosen = query;
        if (chosen == null) {
            throw new IllegalStateException("the database clock is read before it was resolved");
        }
        LocalDateTime now = toLocal(em.createNativeQuery(chosen).getSingleResult());
        if (now == null) {
            throw new IllegalStateException("the database answered its clock query with nothing");
        }
        return now;
    }

    private static LocalDateTime toLocal(Object value) {
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
