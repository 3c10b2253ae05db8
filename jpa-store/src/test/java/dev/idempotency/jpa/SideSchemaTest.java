package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;

import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;

import org.junit.jupiter.api.Test;

import dev.idempotency.jpa.testing.PooledDataSource;
import dev.idempotency.jpa.testing.ResourceLocalTransactions;
import dev.idempotency.jpa.testing.ShippedDdl;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.RecordState;

/**
 * An application's persistence unit that puts its tables in a schema of their own through its
 * mapping ({@code persistence-unit-defaults}' schema in an {@code orm.xml}), while its
 * connections keep the default {@code search_path}; an {@code idempotency_record} table is in
 * both schemas (another application's, or one left from before the move). The store's JPQL reads
 * and writes the mapped table, its PostgreSQL statements (the native insert, the statements on
 * the datasource) named the table unqualified and reached the other one: a claim was written
 * where no read looked, and the key ran again.
 */
class SideSchemaTest {

    private static final String URL = "jdbc:postgresql://127.0.0.1:5432/test";
    private static final Duration LEASE = Duration.ofMinutes(1);

    @Test
    void aUnitMappingTheTableToAnotherSchemaKeepsEveryClaimInThatTable() throws Exception {
        try (Connection connection = DriverManager.getConnection(URL, "postgres", "");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS idem_side");
            statement.execute("SET search_path TO idem_side");
            ShippedDdl.recreate(statement, "postgresql.sql");
            statement.execute("SET search_path TO public");
            ShippedDdl.recreate(statement, "postgresql.sql");
        }
        EntityManagerFactory factory = Persistence.createEntityManagerFactory("idempotency-test-side-schema", Map.of(
                "jakarta.persistence.jdbc.url", URL, "jakarta.persistence.jdbc.user", "postgres",
                "jakarta.persistence.jdbc.password", "", "eclipselink.session-name", "idempotency-test-side-schema"));
        try (PooledDataSource dataSource = new PooledDataSource(URL, "postgres")) {
            JpaRecords onARequestsPath = new JpaRecords(new ResourceLocalTransactions(factory, dataSource));
            JpaRecords inTransactions = new JpaRecords(new ResourceLocalTransactions(factory));
            String key = "side-schema-" + System.nanoTime();

            assertThat(onARequestsPath.claim(key, "fp", LEASE)).isInstanceOf(ClaimResult.Acquired.class);

            assertThat(inTransactions.find(key)).as("the claim, read through the mapped entity").get()
                    .extracting(record -> record.state()).isEqualTo(RecordState.IN_PROGRESS);
            assertThat(inTransactions.claim(key, "fp-other", LEASE)).as("another request with the key, in a transaction")
                    .isInstanceOf(ClaimResult.Existing.class);
            String other = "side-schema-tx-" + System.nanoTime();
            assertThat(inTransactions.claim(other, "fp", LEASE)).isInstanceOf(ClaimResult.Acquired.class);
            assertThat(onARequestsPath.claim(other, "fp-other", LEASE)).as("and the other way round")
                    .isInstanceOf(ClaimResult.Existing.class);
        } finally {
            factory.close();
        }
    }
}
