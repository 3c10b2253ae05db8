package dev.idempotency.jpa;

import jakarta.persistence.EntityManagerFactory;

import dev.idempotency.jpa.testing.ResourceLocalTransactions;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.contract.IdempotencyStoreContractTest;

/** The store contract on one real database, with the DDL shipped in the jar applied fresh. */
abstract class JpaStoreContractTest extends IdempotencyStoreContractTest {

    private static EntityManagerFactory factory;
    private static String openedFor;

    /** @return the JDBC URL of the database */
    abstract String url();

    /** @return its user (no password on these machines) */
    abstract String user();

    /** @return the DDL file under META-INF/idempotency/ddl */
    abstract String ddl();

    /** @return the test persistence unit, so the provider: EclipseLink unless overridden */
    String unit() {
        return "idempotency-test";
    }

    @Override
    protected IdempotencyStore createStore() throws Exception {
        if (!(unit() + " " + url()).equals(openedFor)) {
            if (factory != null) {
                factory.close();
            }
            factory = Databases.fresh(url(), user(), ddl(), unit());
            openedFor = unit() + " " + url();
        }
        return new JpaIdempotencyStore(new JpaRecords(new ResourceLocalTransactions(factory)));
    }

    /** @return the unit the store under test runs on */
    static EntityManagerFactory factory() {
        return factory;
    }
}
