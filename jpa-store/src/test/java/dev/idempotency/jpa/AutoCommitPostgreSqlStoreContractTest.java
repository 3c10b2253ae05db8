package dev.idempotency.jpa;

import java.sql.SQLException;

import org.junit.jupiter.api.AfterAll;

import dev.idempotency.jpa.testing.PooledDataSource;
import dev.idempotency.jpa.testing.ResourceLocalTransactions;
import dev.idempotency.spi.IdempotencyStore;

/**
 * The store contract on the real PostgreSQL with the store's datasource known, as on a Jakarta EE
 * server: first claims are one statement committed on its own ({@link AutoCommitStatementsTest}), and
 * every promise of the contract still holds.
 */
class AutoCommitPostgreSqlStoreContractTest extends PostgreSqlStoreContractTest {

    private static PooledDataSource dataSource;

    @Override
    protected IdempotencyStore createStore() throws Exception {
        super.createStore(); // the fresh table and the unit
        if (dataSource == null) {
            dataSource = new PooledDataSource(url(), user());
        }
        return new JpaIdempotencyStore(new JpaRecords(new ResourceLocalTransactions(factory(), dataSource), nanoClock()));
    }

    /** @return {@code false}: its parent's contract runs in real time already */
    @Override
    boolean realTime() {
        return false;
    }

    @AfterAll
    static void closePool() throws SQLException {
        if (dataSource != null) {
            dataSource.close();
            dataSource = null;
        }
    }
}
