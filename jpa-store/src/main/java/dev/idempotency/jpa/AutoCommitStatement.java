package dev.idempotency.jpa;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import javax.sql.DataSource;

/**
 * One statement committed on its own (or a query, which writes nothing), on a connection of the
 * store's datasource taken for it and given back at once ({@link RecordTransactions#autoCommitDataSource}).
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
        return run(dataSource, sql, parameters, PreparedStatement::executeUpdate);
    }

    /** Maps the first row a query answered. */
    @FunctionalInterface
    interface Row<T> {
        /**
         * @param row the result, on its first row
         * @return what the row holds
         * @throws SQLException as JDBC does
         */
        T map(ResultSet row) throws SQLException;
    }

    /**
     * A query that writes nothing, on a connection of the datasource.
     *
     * @param dataSource the store's datasource, on a thread without a transaction
     * @param sql the query
     * @param parameters binds its parameters
     * @param row maps the first row
     * @param <T> what a row holds
     * @return the first row mapped, or null when there is none
     * @throws SQLException when the database refused or did not answer
     */
    static <T> T queryFirst(DataSource dataSource, String sql, Parameters parameters, Row<T> row) throws SQLException {
        return run(dataSource, sql, parameters, statement -> {
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() ? row.map(rows) : null;
            }
        });
    }

    /** Runs a bound statement. */
    @FunctionalInterface
    private interface Execution<T> {
        T run(PreparedStatement statement) throws SQLException;
    }

    private static <T> T run(DataSource dataSource, String sql, Parameters parameters, Execution<T> execution)
            throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            boolean autoCommit = connection.getAutoCommit();
            try {
                parameters.bind(statement);
                T result = execution.run(statement);
                if (!autoCommit) {
                    connection.commit(); // a pool that hands out manual-commit connections: left as it was
                }
                return result;
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
