package dev.idempotency.jpa;

import java.sql.SQLException;
import java.sql.Types;
import java.time.LocalDateTime;

import javax.sql.DataSource;

import dev.idempotency.spi.StoredOutcome;

/**
 * A completion on a thread without a transaction, on PostgreSQL: one {@code UPDATE} committed on
 * its own on a connection of the store's datasource ({@link RecordTransactions#autoCommitDataSource}),
 * as an HTTP request's completion is (it runs after the method's transaction ended). What a
 * transaction of the store's own holding only this statement would commit. Its conditions are
 * those of {@link JpaRecords#complete}'s JPQL, which joins a caller's transaction: the owner's
 * in-progress claim (whatever its lease, until its retention ends) or executed record becomes
 * COMPLETED. The store contract runs on both ({@code AutoCommitPostgreSqlStoreContractTest},
 * {@code PostgreSqlStoreContractTest}).
 */
final class AutoCommitCompletion {

    static final String SQL = "UPDATE idempotency_record SET state = ?, expires_at = ?, outcome_status = ?,"
            + " outcome_headers = ?, outcome_body = ?, body_stored = ?, updated_at = ?, version = version + 1"
            + " WHERE record_key = ? AND owner_token = ? AND (((state = ? OR state = ?) AND expires_at > ?)"
            + " OR (state = ? AND expires_at IS NULL AND lease_end > ?))";

    private AutoCommitCompletion() {
    }

    /**
     * @param dataSource the store's datasource, on a thread without a transaction
     * @param now the database's time now
     * @param expiresAt the end of the completed record's retention
     * @return whether the owner still held the claim, and the row is now COMPLETED
     * @throws SQLException when the database refused or did not answer
     */
    static boolean complete(DataSource dataSource, String key, String owner, StoredOutcome outcome, LocalDateTime now,
            LocalDateTime expiresAt) throws SQLException {
        return AutoCommitStatement.executeUpdate(dataSource, SQL, update -> {
            update.setString(1, JpaRecords.COMPLETED);
            update.setObject(2, expiresAt);
            update.setInt(3, outcome.status());
            update.setString(4, JpaRecords.encode(outcome.headers()));
            if (outcome.body() == null) {
                update.setNull(5, Types.BINARY);
            } else {
                update.setBytes(5, outcome.body());
            }
            update.setBoolean(6, outcome.bodyStored());
            update.setObject(7, now);
            update.setString(8, key);
            update.setString(9, owner);
            update.setString(10, JpaRecords.IN_PROGRESS);
            update.setString(11, JpaRecords.EXECUTED);
            update.setObject(12, now);
            update.setString(13, JpaRecords.IN_PROGRESS);
            update.setObject(14, now);
        }) == 1;
    }
}
