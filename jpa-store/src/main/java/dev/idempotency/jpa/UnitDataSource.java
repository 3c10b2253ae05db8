package dev.idempotency.jpa;

import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;

/**
 * Finds the datasource of the store's persistence unit: the {@code jta-data-source} its
 * {@code persistence.xml} names, looked up in JNDI once, when the store starts. With it a first
 * claim is one auto-committed {@code INSERT} ({@link RecordTransactions#autoCommitDataSource}).
 * Not found (a unit the deployment does not name, a name this thread cannot look up, an object
 * that is no {@link DataSource}): the claims keep to transactions of the store's own, as before;
 * nothing else changes, so this is logged at {@code CONFIG} only.
 */
final class UnitDataSource {

    private static final Logger LOG = Logger.getLogger(UnitDataSource.class.getName());

    private UnitDataSource() {
    }

    /**
     * @param unit the store's persistence unit, or {@code ""} when it is not known
     * @param application the class loader that sees the application's {@code persistence.xml} files
     * @return the unit's datasource, or empty when it cannot be found
     */
    static Optional<DataSource> lookUp(String unit, ClassLoader application) {
        String name = unit.isEmpty() ? null : PoolSizeCheck.persistenceUnitDataSources(application).get(unit);
        if (name == null) {
            LOG.config(() -> "The JPA store's claims run in transactions of its own: the datasource of its unit '" + unit
                    + "' is not named in a persistence.xml.");
            return Optional.empty();
        }
        try {
            return Optional.of((DataSource) new InitialContext().lookup(name));
        } catch (NamingException | ClassCastException | IllegalStateException e) {
            LOG.log(Level.CONFIG, e, () -> "The JPA store's claims run in transactions of its own: the datasource "
                    + name + " of its unit '" + unit + "' cannot be looked up here.");
            return Optional.empty();
        }
    }
}
