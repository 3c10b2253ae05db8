package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;

import org.junit.jupiter.api.Test;

import dev.idempotency.jpa.testing.PooledDataSource;
import dev.idempotency.jpa.testing.ResourceLocalTransactions;
import dev.idempotency.jpa.testing.ShippedDdl;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyStoreException;
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
        onPostgreSql(statement -> {
            statement.execute("CREATE SCHEMA IF NOT EXISTS idem_side");
            statement.execute("SET search_path TO idem_side");
            ShippedDdl.recreate(statement, "postgresql.sql");
            statement.execute("SET search_path TO public");
            ShippedDdl.recreate(statement, "postgresql.sql");
        });
        EntityManagerFactory factory = sideSchemaUnit("idempotency-test-side-schema");
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

    @Test
    void aMappedTableThatIsMissingIsReportedAsTheEntitysNotTheSearchPaths() throws Exception {
        // The probe's row went into the table the search_path finds; the entity's own table was
        // missing, and the warning sent the operator to the search_path, which was fine.
        onPostgreSql(statement -> {
            statement.execute("CREATE SCHEMA IF NOT EXISTS idem_side");
            statement.execute("DROP TABLE IF EXISTS idem_side.idempotency_record");
            statement.execute("SET search_path TO public");
            ShippedDdl.recreate(statement, "postgresql.sql");
        });
        List<LogRecord> warnings = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                warnings.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger logger = Logger.getLogger(InsertIfAbsent.class.getName());
        logger.addHandler(handler);
        EntityManagerFactory factory = sideSchemaUnit("idempotency-test-side-schema-missing");
        try (PooledDataSource dataSource = new PooledDataSource(URL, "postgres")) {
            JpaRecords onARequestsPath = new JpaRecords(new ResourceLocalTransactions(factory, dataSource));

            assertThatThrownBy(() -> onARequestsPath.claim("side-missing-" + System.nanoTime(), "fp", LEASE))
                    .as("no table where the entity is mapped: no claim").isInstanceOf(IdempotencyStoreException.class);
            assertThat(warnings).extracting(LogRecord::getMessage)
                    .anySatisfy(message -> assertThat(message).startsWith("IDEMP0515: the JPA store cannot read the table"))
                    .noneSatisfy(message -> assertThat(message).contains("search_path has no idempotency_record table"));
        } finally {
            logger.removeHandler(handler);
            factory.close();
            onPostgreSql(statement -> {
                statement.execute("SET search_path TO idem_side");
                ShippedDdl.recreate(statement, "postgresql.sql");
            });
        }
    }

    /** Statements run on a connection of their own. */
    private interface Sql {
        void run(Statement statement) throws Exception;
    }

    private static void onPostgreSql(Sql work) throws Exception {
        try (Connection connection = DriverManager.getConnection(URL, "postgres", "");
                Statement statement = connection.createStatement()) {
            work.run(statement);
        }
    }

    /** @return the unit whose mapping puts its tables in the schema idem_side, as a session of that name */
    private static EntityManagerFactory sideSchemaUnit(String session) {
        return Persistence.createEntityManagerFactory("idempotency-test-side-schema", Map.of(
                "jakarta.persistence.jdbc.url", URL, "jakarta.persistence.jdbc.user", "postgres",
                "jakarta.persistence.jdbc.password", "", "eclipselink.session-name", session));
    }
}
