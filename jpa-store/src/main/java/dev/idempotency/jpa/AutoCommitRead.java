package dev.idempotency.jpa;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;

import javax.sql.DataSource;

/**
 * A key's row read by one query on the store's datasource, on a thread without a transaction:
 * what a look-up, or a claim that met the row, reads in a transaction of the store's own, without
 * the transaction, the entity manager and its unit of work. Under READ COMMITTED (PostgreSQL's
 * default) both read the last committed row. Times come through {@code getObject(LocalDateTime)},
 * as they are, whatever the JVM's zone. The row is only looked at: a change to it (a takeover)
 * goes on in a transaction of the store's own, which reads the row again.
 */
final class AutoCommitRead {

    static final String SQL = "SELECT state, fingerprint, owner_token, version, lease_end, expires_at, created_at,"
            + " outcome_status, outcome_headers, outcome_body, body_stored FROM idempotency_record WHERE record_key = ?";

    private AutoCommitRead() {
    }

    /**
     * @param dataSource the store's datasource, on a thread without a transaction
     * @param key the scoped, hashed key
     * @return the key's row as committed, or null when there is none
     * @throws SQLException when the database refused or did not answer
     */
    static IdempotencyRecordEntity row(DataSource dataSource, String key) throws SQLException {
        return AutoCommitStatement.queryFirst(dataSource, SQL, query -> query.setString(1, key), row -> toEntity(key, row));
    }

    private static IdempotencyRecordEntity toEntity(String key, ResultSet row) throws SQLException {
        int status = row.getInt(8);
        Integer outcomeStatus = row.wasNull() ? null : status;
        boolean stored = row.getBoolean(11);
        Boolean bodyStored = row.wasNull() ? null : stored;
        return IdempotencyRecordEntity.asRead(key, row.getString(1), row.getString(2), row.getString(3), row.getLong(4),
                row.getObject(5, LocalDateTime.class), row.getObject(6, LocalDateTime.class),
                row.getObject(7, LocalDateTime.class))
                .withOutcome(outcomeStatus, row.getString(9), row.getBytes(10), bodyStored);
    }
}
