package dev.idempotency.it.support;

import java.security.Principal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.idempotency.IdempotencyScope;
import dev.idempotency.claim.ScopedKey;

/**
 * Reads the sample's PostgreSQL tables directly, over JDBC: what actually committed, not what the
 * app says.
 */
public final class PaymentsDatabase {

    private PaymentsDatabase() {
    }

    /**
     * @param orderId an order
     * @return how many rows the {@code payment} table holds for it
     */
    public static long paymentRows(String orderId) {
        return query("SELECT count(*) FROM payment WHERE order_id = ?", orderId, rs -> rs.next() ? rs.getLong(1) : 0L);
    }

    /**
     * @param idempotencyKey a client's key for {@code POST /api/imports}
     * @return how many rows the local message table {@code import_message} holds for it
     */
    public static long importMessages(String idempotencyKey) {
        return query("SELECT count(*) FROM import_message WHERE idempotency_key = ?", idempotencyKey,
                rs -> rs.next() ? rs.getLong(1) : 0L);
    }

    /**
     * @param orderPrefix the start of the order ids of some imports
     * @return how many of their rows in the local message table are given up ({@code FAILED})
     */
    public static long failedImports(String orderPrefix) {
        return query("SELECT count(*) FROM import_message WHERE order_id LIKE ? AND state = 'FAILED'", orderPrefix + "%",
                rs -> rs.next() ? rs.getLong(1) : 0L);
    }

    /**
     * @param endpoint the policy's endpoint, {@code bean class name#method}
     * @param caller the authenticated caller, or {@code null}
     * @param rawKey the Idempotency-Key the client sent
     * @return the state of its {@code idempotency_record} row, if there is one
     */
    public static Optional<String> recordState(String endpoint, Principal caller, String rawKey) {
        String key = ScopedKey.of(IdempotencyScope.PRINCIPAL, endpoint, caller, rawKey);
        return query("SELECT state FROM idempotency_record WHERE record_key = ?", key,
                rs -> rs.next() ? Optional.of(rs.getString(1)) : Optional.<String>empty());
    }

    /**
     * @param jdbcUrl the database (this machine's shared one, or a test's own)
     * @param orderPrefix the start of the order ids of one run
     * @return the number of {@code payment} rows per order id
     */
    public static Map<String, Long> rowsPerOrder(String jdbcUrl, String orderPrefix) {
        return query(jdbcUrl, "SELECT order_id, count(*) FROM payment WHERE order_id LIKE ? GROUP BY order_id",
                orderPrefix + "%", rs -> {
                    Map<String, Long> rows = new HashMap<>();
                    while (rs.next()) {
                        rows.put(rs.getString(1), rs.getLong(2));
                    }
                    return rows;
                });
    }

    /**
     * @param jdbcUrl the database (this machine's shared one, or a test's own)
     * @param orderPrefix the start of the order ids of one run
     * @return the ids of the {@code payment} rows per order id
     */
    public static Map<String, Set<String>> paymentIdsPerOrder(String jdbcUrl, String orderPrefix) {
        return query(jdbcUrl, "SELECT order_id, id FROM payment WHERE order_id LIKE ?", orderPrefix + "%", rs -> {
            Map<String, Set<String>> ids = new HashMap<>();
            while (rs.next()) {
                ids.computeIfAbsent(rs.getString(1), order -> new HashSet<>()).add(rs.getString(2));
            }
            return ids;
        });
    }

    /** The sample's tables whose timestamps a provider once kept in {@code BYTEA} (before {@code InstantColumn}). */
    private static final java.util.List<String> TIMESTAMPED = java.util.List.of("payment", "import_message");

    /** A column each of the sample's tables has had only since a change of its schema: without it, it is older. */
    private static final Map<String, String> NEWEST_COLUMN = Map.of("import_message", "next_attempt_at");

    /**
     * Drops the sample's tables in this machine's database whose {@code created_at} is not a
     * {@code TIMESTAMP} (as every provider now writes it), or that lack a column added since
     * ({@code import_message.next_attempt_at}, the local message table's retries): tables an
     * earlier build created, which the deployments would otherwise fail on. The next deployment
     * creates them again. Tables of the current schema are left as they are.
     *
     * @return the tables dropped
     */
    public static java.util.List<String> dropTablesOfAnOlderSchema() {
        java.util.List<String> dropped = new java.util.ArrayList<>();
        try (Connection connection = DriverManager.getConnection(PostgreSqlDataSource.URL, PostgreSqlDataSource.USER, "");
                PreparedStatement type = connection.prepareStatement("SELECT data_type FROM information_schema.columns"
                        + " WHERE table_schema = current_schema() AND table_name = ? AND column_name = 'created_at'")) {
            for (String table : TIMESTAMPED) {
                type.setString(1, table);
                try (ResultSet rs = type.executeQuery()) {
                    if (rs.next() && !rs.getString(1).startsWith("timestamp")) {
                        drop(connection, table);
                        dropped.add(table + " (created_at " + rs.getString(1) + ")");
                    }
                }
            }
            for (Map.Entry<String, String> newest : NEWEST_COLUMN.entrySet()) {
                if (lacksColumn(connection, newest.getKey(), newest.getValue())) {
                    drop(connection, newest.getKey());
                    dropped.add(newest.getKey() + " (no " + newest.getValue() + ")");
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL at " + PostgreSqlDataSource.URL + " could not be checked", e);
        }
        return dropped;
    }

    private static void drop(Connection connection, String table) throws SQLException {
        try (var drop = connection.createStatement()) {
            drop.execute("DROP TABLE " + table + " CASCADE");
        }
    }

    /** @return whether the table exists without the column */
    private static boolean lacksColumn(Connection connection, String table, String column) throws SQLException {
        try (PreparedStatement columns = connection.prepareStatement("SELECT column_name FROM information_schema.columns"
                + " WHERE table_schema = current_schema() AND table_name = ?")) {
            columns.setString(1, table);
            try (ResultSet rs = columns.executeQuery()) {
                boolean exists = false;
                while (rs.next()) {
                    exists = true;
                    if (column.equals(rs.getString(1))) {
                        return false;
                    }
                }
                return exists;
            }
        }
    }

    private interface Reader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private static <T> T query(String sql, String parameter, Reader<T> reader) {
        return query(PostgreSqlDataSource.URL, sql, parameter, reader);
    }

    private static <T> T query(String url, String sql, String parameter, Reader<T> reader) {
        try (Connection connection = DriverManager.getConnection(url, PostgreSqlDataSource.USER, "");
                PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, parameter);
            try (ResultSet rs = statement.executeQuery()) {
                return reader.read(rs);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL at " + url + " did not answer " + sql, e);
        }
    }
}
