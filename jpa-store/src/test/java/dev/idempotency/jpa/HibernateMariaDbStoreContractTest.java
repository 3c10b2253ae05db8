package dev.idempotency.jpa;

/** The store contract on the real MariaDB with Hibernate, WildFly's provider, on the shipped DDL. */
class HibernateMariaDbStoreContractTest extends MariaDbStoreContractTest {

    @Override
    String unit() {
        return "idempotency-test-hibernate";
    }
}
