package dev.idempotency.jpa;

import java.time.Duration;
import java.time.ZoneId;
import java.util.List;

/**
 * The coded messages of the JPA store, range 05xx: every one of them is written here, and
 * docs/troubleshooting.md explains each. Codes are stable: users search for them.
 * docs/message-codes.md lists which module owns which range. Messages never contain raw keys or
 * bodies.
 *
 * <p>Ranges: 0501-0503 the purge settings, 0504-0507 the purge job, 0508-0509 the database clock,
 * 0510-0512 the store's own transactions.
 */
final class JpaMessages {

    private JpaMessages() {
    }

    // --- 0501-0503: purge settings ------------------------------------------------------

    /** IDEMP0501: {@code idempotency.jpa.purge.enabled} is not a boolean; fails the deployment. */
    static String invalidPurgeEnabled(String key, String value) {
        return "IDEMP0501: library setting " + key + "='" + value + "' is not a boolean; allowed: true or false";
    }

    /** IDEMP0502: {@code idempotency.jpa.purge.batch-size} is not an integer from 1 to 100000; fails the deployment. */
    static String invalidPurgeBatchSize(String key, String value) {
        return "IDEMP0502: library setting " + key + "='" + value + "' is not allowed; allowed: an integer from 1 to 100000";
    }

    /** IDEMP0503: a purge duration (interval, abandoned-after) is not a positive ISO-8601 duration up to P36500D; fails the deployment. */
    static String invalidPurgeDuration(String key, String value) {
        return "IDEMP0503: library setting " + key + "='" + value
                + "' is not allowed; allowed: an ISO-8601 duration of at least PT0.001S and at most P36500D, such as PT5M";
    }

    // --- 0504-0507: purge job -----------------------------------------------------------

    /** IDEMP0504 (INFO): this node runs no purge, as configured. */
    static String purgeDisabled(String enabledKey) {
        return "IDEMP0504: the idempotency purge is disabled on this node (" + enabledKey + "=false)";
    }

    /** IDEMP0505 (FINE): one purge run deleted records. */
    static String purged(int deleted) {
        return "IDEMP0505: purged " + deleted + " idempotency records";
    }

    /** IDEMP0506 (WARNING): one purge run failed; the next runs after the interval. */
    static String purgeFailed(Duration interval) {
        return "IDEMP0506: the idempotency purge failed; it runs again in " + interval;
    }

    /** IDEMP0507: the server offers no default managed scheduled executor to run the purge on. */
    static String purgeSchedulerMissing(String scheduler, String enabledKey) {
        return "IDEMP0507: the idempotency purge needs Jakarta Concurrency's " + scheduler + "; disable it with "
                + enabledKey + "=false to run without";
    }

    // --- 0508-0509: database clock ------------------------------------------------------

    /** IDEMP0508 (FINE): the SQL expression chosen to read the database's clock. */
    static String clockExpression(String expression) {
        return "IDEMP0508: the JPA store reads the database's clock with " + expression;
    }

    /** IDEMP0509 (WARNING, once): no UTC clock expression works; the store uses the session's local time. */
    static String clockFallsBackToLocalTime(List<String> utcExpressions) {
        return "IDEMP0509: the database accepted none of " + utcExpressions + "; the JPA store falls back to "
                + "LOCALTIMESTAMP, which follows each connection's time zone: run every node in the same time zone";
    }

    // --- 0510-0512: the store's own transactions ----------------------------------------

    /** IDEMP0510: {@code idempotency.jpa.max-own-transactions} is out of range; fails the deployment. */
    static String invalidMaxOwnTransactions(String key, String value, int largest) {
        return "IDEMP0510: library setting " + key + "='" + value + "' is not allowed; allowed: an integer from 1 to "
                + largest + " (the datasource's pool needs this many connections beyond its callers')";
    }

    /** IDEMP0511: all of the store's own transactions are running; the operation is refused (503). */
    static String ownTransactionsExhausted(int max, String key) {
        return "IDEMP0511: the JPA store's " + max + " transactions of its own (" + key
                + ") are all running, each holding a second connection while its caller's transaction holds one;"
                + " refused at once instead of waiting for a thread or a connection";
    }

    /**
     * IDEMP0512: {@code idempotency.jpa.max-own-transactions} is at or above the declared pool of the
     * store's datasource; fails the deployment.
     */
    static String poolTooSmall(String key, int bound, String dataSource, String declaredOn, int maxPoolSize,
            String unit) {
        String allowed = maxPoolSize == 1 ? "a pool of at least 2 connections"
                : "1 to " + (maxPoolSize - 1) + ", and a pool of the callers that run in a transaction plus the bound";
        return "IDEMP0512: library setting " + key + "='" + bound + "' is not allowed with the datasource '"
                + dataSource + "' (@DataSourceDefinition on " + declaredOn + ", maxPoolSize=" + maxPoolSize
                + ") of the store's persistence unit '" + unit + "': each of the store's own transactions needs a"
                + " second connection while its caller holds one, so with the bound at or above the pool's size every"
                + " connection can be held by a caller waiting for another; allowed: " + allowed;
    }

    /**
     * IDEMP0514 (WARNING, on the store's first claims): the store's PostgreSQL statements, which
     * name the table unqualified, do not reach the table the entity is mapped to; every claim
     * keeps to JPQL until the application restarts.
     */
    static String statementsMissTheEntitysTable(String why) {
        return "IDEMP0514: the JPA store keeps to JPQL on PostgreSQL (no INSERT ... ON CONFLICT, no statements on the"
                + " datasource; slower, and a claim waits as on other databases) since its statements, which name the"
                + " table idempotency_record unqualified, miss the entity's table: " + why + "; to have them, put the"
                + " table in the connection's search_path (the JDBC URL's currentSchema) instead of mapping its schema";
    }

    /**
     * IDEMP0515 (WARNING, on the store's first claims): the table the entity is mapped to cannot be
     * read (it does not exist where the mapping puts it, or the database refuses it), while the
     * store's statements reach a table of that name: every claim through the entity fails.
     */
    static String entitysTableUnreadable(String why) {
        return "IDEMP0515: the JPA store cannot read the table its entity IdempotencyRecordEntity is mapped to ("
                + why + "), though its statements reach a table idempotency_record where the connection's search_path"
                + " looks; claims will fail until it can: create the table where the unit maps it (the shipped DDL),"
                + " or correct the mapping's schema (an orm.xml's persistence-unit-defaults)";
    }

    /**
     * IDEMP0516: the persistence unit's provider binds times in another zone than the JVM's
     * ({@code hibernate.jdbc.time_zone}); fails the store's first call, before any record is
     * written or read.
     */
    static String providerTimeZone(String key, String value, ZoneId jvm) {
        return "IDEMP0516: persistence unit property " + key + "='" + value + "' is not allowed with the JPA store on"
                + " this JVM, whose time zone is '" + jvm.getId() + "': the provider would bind the store's times in"
                + " that zone and the store's own statements in the JVM's, hours apart (live records purged, leases"
                + " cut short); allowed: unset, or a zone with the JVM's rules (run the JVM in that zone, e.g."
                + " -Duser.timezone=" + value + ")";
    }

    /**
     * IDEMP0513 (WARNING, once): the datasource named for the store's unit does not reach the
     * entity manager's table (or cannot tell); claims and completions keep to transactions.
     */
    static String autoCommitRefused(String why) {
        return "IDEMP0513: the JPA store's claims and completions keep to transactions of their own: the datasource"
                + " its persistence unit names is not used for statements committed on their own, since " + why;
    }
}
