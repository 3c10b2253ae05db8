package dev.idempotency.jpa;

/** The store contract on the real PostgreSQL at 127.0.0.1:5432 (database {@code test}), in real time. */
class PostgreSqlStoreContractTest extends JpaStoreContractTest {

    @Override
    boolean realTime() {
        return true;
    }

    @Override
    String url() {
        return "jdbc:postgresql://127.0.0.1:5432/test";
    }

    @Override
    String user() {
        return "postgres";
    }

    @Override
    String ddl() {
        return "postgresql.sql";
    }
}
