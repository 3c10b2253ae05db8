package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import dev.idempotency.jpa.testing.ResourceLocalTransactions;

/**
 * The store contract on the real PostgreSQL with Hibernate, WildFly's provider, on the shipped
 * DDL: the outcome columns read and written as values, and the product known although Hibernate
 * refuses {@code unwrap(Connection.class)}, so that the one-statement claim is used.
 */
class HibernatePostgreSqlStoreContractTest extends PostgreSqlStoreContractTest {

    @Override
    String unit() {
        return "idempotency-test-hibernate";
    }

    /** @return {@code false}: its parent's contract runs in real time already */
    @Override
    boolean realTime() {
        return false;
    }

    @Test
    void hibernateLendsItsConnectionSoTheProductAndTheOneStatementClaimAreKnown() throws Exception {
        createStore();
        ResourceLocalTransactions transactions = new ResourceLocalTransactions(factory());

        assertThat(new DatabaseProduct().name(transactions)).isEqualTo("postgresql");
        InsertIfAbsent insert = new InsertIfAbsent();
        insert.resolve(transactions);
        assertThat(insert.available()).isTrue();
    }
}
