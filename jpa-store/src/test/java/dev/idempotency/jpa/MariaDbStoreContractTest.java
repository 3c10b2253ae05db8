package dev.idempotency.jpa;

/** The store contract on the real MariaDB at 127.0.0.1:3306 (database {@code test}). */
class MariaDbStoreContractTest extends JpaStoreContractTest {

    @Override
    String url() {
        return "jdbc:mariadb://127.0.0.1:3306/test";
    }

    @Override
    String user() {
        return "root";
    }

    @Override
    String ddl() {
        return "mariadb.sql";
    }
}
