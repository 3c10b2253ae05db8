package dev.idempotency.jpa;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.logging.Level;
import java.util.logging.Logger;

import javax.sql.DataSource;

/**
 * Whether the datasource of the store's auto-committed statements reaches the same table as its
 * entity manager: the same PostgreSQL server (its start time and port), database and schema. The
 * datasource is found by the name a {@code persistence.xml} gives ({@link UnitDataSource}), which
 * a provider property, a server's resource reference or a second file of the same unit may
 * override; a claim written to one database and read from another would let a key run twice, so
 * the statements are used only once both answer alike. Asked once, on PostgreSQL only (the one
 * database with such statements), on the first store call that could use them.
 */
final class SameDatabase {

    private static final Logger LOG = Logger.getLogger(SameDatabase.class.getName());

    /** The server instance, database and schema a connection works in, as PostgreSQL names them. */
    static final String IDENTITY = "SELECT current_database() || '|' || current_schema() || '|'"
            + " || extract(epoch from pg_postmaster_start_time()) || '|' || coalesce(inet_server_port(), 0)";

    private volatile Boolean same;

    /**
     * @param dataSource the datasource of the auto-committed statements
     * @param transactions the store's transactions, whose entity manager is asked the same
     * @return whether both reach the same table; a failure to tell is kept as {@code false}
     */
    boolean of(DataSource dataSource, RecordTransactions transactions) {
        Boolean known = same;
        if (known == null) {
            known = decide(dataSource, transactions);
            same = known;
        }
        return known;
    }

    private static boolean decide(DataSource dataSource, RecordTransactions transactions) {
        String viaDataSource;
        String viaEntityManager;
        try {
            // one connection at a time: the datasource's is given back before the entity manager takes
            // one, so that a nearly exhausted pool never finds this holding one while waiting for another
            viaDataSource = identity(dataSource);
            viaEntityManager = transactions.inNewTransaction(em -> String.valueOf(em.createNativeQuery(IDENTITY).getSingleResult()));
        } catch (SQLException | RuntimeException e) {
            LOG.log(Level.WARNING, e, () -> JpaMessages.autoCommitRefused("it could not be asked which database it reaches"));
            return false;
        }
        if (viaDataSource == null || !Objects.equals(viaDataSource, viaEntityManager)) {
            LOG.warning(() -> JpaMessages.autoCommitRefused("it reaches " + viaDataSource
                    + " (database|schema|server start|port), the entity manager " + viaEntityManager));
            return false;
        }
        return true;
    }

    private static String identity(DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                ResultSet identity = statement.executeQuery(IDENTITY)) {
            return identity.next() ? identity.getString(1) : null;
        }
    }
}
