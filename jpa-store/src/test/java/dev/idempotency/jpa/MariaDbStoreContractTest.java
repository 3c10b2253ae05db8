package dev.idempotency.jpa;

import jakarta.persistence.EntityManagerFactory;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.contract.IdempotencyStoreContractTest;

/** The store contract on the real MariaDB at 127.0.0.1:3306 (database {@code test}), with the shipped DDL. */
class MariaDbStoreContractTest extends IdempotencyStoreContractTest {

    static EntityManagerFactory factory;

    @BeforeAll
    static void database() throws Exception {
        factory = Databases.fresh("jdbc:mariadb://127.0.0.1:3306/test", "root", "mariadb.sql");
    }

    @AfterAll
    static void close() {
        factory.close();
    }

    @Override
    protected IdempotencyStore createStore() {
        return new JpaIdempotencyStore(new JpaRecords(new ResourceLocalTransactions(factory)));
    }
}
