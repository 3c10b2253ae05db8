package dev.idempotency.jpa;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import javax.sql.DataSource;

/**
 * One statement committed on its own, on a connection of the store's datasource taken for it and
 * given back at once ({@link RecordTransactions#autoCommitDataSource}).
 */
final class AutoCommitStatement {

    /** Binds a statement's parameters. */
    @FunctionalInterface
    interface Parameters {
        /**
         * @param statement the prepared statement
         * @throws SQLException as JDBC does
         */
        void bind(PreparedStatement statement) throws SQLException;
    }

    private AutoCommitStatement() {
    }

    /**
     * @param dataSource the store's datasource, on a thread without a transaction
     * @param sql the statement
     * @param parameters binds its parameters
     * @return the rows it changed, committed
     * @throws SQLException when the database refused or did not answer: nothing is known to be committed
     */
    static int executeUpdate(DataSource dataSource, String sql, Parameters parameters) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            boolean autoCommit = connection.getAutoCommit();
            try {
                parameters.bind(statement);
                int changed = statement.executeUpdate();
                if (!autoCommit) {
                    connection.commit(); // a pool that hands out manual-commit connections: left as it was
                }
                return changed;
            } catch (SQLException | RuntimeException e) {
                if (!autoCommit) {
                    rollBack(connection, e); // never back to the pool inside an aborted transaction
                }
                throw e;
            }
        }
    }

    private static void rollBack(Connection connection, Exception failure) {
        try {
            connection.rollback();
        } catch (SQLException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }
}
