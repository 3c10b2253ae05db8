package dev.idempotency.jpa;

import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;

/**
 * Finds the datasource of the store's persistence unit: the {@code jta-data-source} its
 * {@code persistence.xml} names, looked up in JNDI once, on the store's first call. With it a first
 * claim and a completion are each one auto-committed statement ({@link RecordTransactions#autoCommitDataSource}).
 * Not found (a unit the deployment does not name, a name this thread cannot look up, an object
 * that is no {@link DataSource}), or on Open Liberty: they keep to transactions of the store's own, as before;
 * nothing else changes, so this is logged at {@code CONFIG} only. Found, it is used only once it
 * proves to reach the entity manager's table ({@link SameDatabase}).
 */
final class UnitDataSource {

    private static final Logger LOG = Logger.getLogger(UnitDataSource.class.getName());

    /**
     * Open Liberty's datasources ({@code com.ibm.ws.rsadapter.jdbc.WSJdbcDataSource}). With the
     * statements on, a storm of 50 requests on a pool of 80 held 82 connections there against 53
     * without them (not so on Payara or WildFly): a shareable connection taken outside a global
     * transaction stays in the request's local transaction containment, apparently until the
     * request ends, beside the method's own. There the store keeps to its transactions.
     */
    private static final String LIBERTY = "com.ibm.ws.";

    private UnitDataSource() {
    }

    /**
     * @param unit the store's persistence unit, or {@code ""} when it is not known
     * @param application the class loader that sees the application's {@code persistence.xml} files
     * @return the unit's datasource, or empty when it cannot be found
     */
    static Optional<DataSource> lookUp(String unit, ClassLoader application) {
        ClassLoader loader = application != null ? application : UnitDataSource.class.getClassLoader();
        String name = unit.isEmpty() ? null : PoolSizeCheck.persistenceUnitDataSources(loader).get(unit);
        if (name == null) {
            LOG.config(() -> "The JPA store's claims and completions run in transactions of its own: the datasource of its unit '" + unit
                    + "' is not named in a persistence.xml.");
            return Optional.empty();
        }
        try {
            DataSource found = (DataSource) new InitialContext().lookup(name);
            if (found.getClass().getName().startsWith(LIBERTY)) {
                LOG.config(() -> "The JPA store's claims and completions run in transactions of its own: on Open Liberty a connection of "
                        + name + " taken outside a transaction stays held until the request ends.");
                return Optional.empty();
            }
            return Optional.of(found);
        } catch (NamingException | RuntimeException e) {
            LOG.log(Level.CONFIG, e, () -> "The JPA store's claims and completions run in transactions of its own: the datasource "
                    + name + " of its unit '" + unit + "' cannot be looked up here.");
            return Optional.empty();
        }
    }
}
