package dev.idempotency.it.support;

import java.security.Principal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

import dev.idempotency.IdempotencyScope;
import dev.idempotency.internal.ScopedKey;

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

    private interface Reader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private static <T> T query(String sql, String parameter, Reader<T> reader) {
        try (Connection connection = DriverManager.getConnection(PostgreSqlDataSource.URL, PostgreSqlDataSource.USER, "");
                PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, parameter);
            try (ResultSet rs = statement.executeQuery()) {
                return reader.read(rs);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL at " + PostgreSqlDataSource.URL + " did not answer " + sql, e);
        }
    }
}
