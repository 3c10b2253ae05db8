package dev.idempotency.benchmarks;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.UUID;

import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import dev.idempotency.jpa.JpaIdempotencyStore;
import dev.idempotency.jpa.JpaRecords;
import dev.idempotency.jpa.testing.ResourceLocalTransactions;

/**
 * The JPA store (EclipseLink, resource-local transactions) against raw JDBC doing the least an
 * owner-safe claim and completion need, on the same PostgreSQL and in the same transaction
 * shapes: {@code INSERT ... ON CONFLICT DO NOTHING} committed on its own, then an owner-checked
 * {@code UPDATE} committed in another.
 */
@State(Scope.Benchmark)
public class JpaStoreBenchmark extends OurStoreBenchmark {


    private EntityManagerFactory factory;

    /** One JDBC connection per benchmark thread, as a pool would hand out. */
    @State(Scope.Thread)
    public static class Jdbc {
        Connection connection;
        Connection reader;
        PreparedStatement claim;
        PreparedStatement complete;
        PreparedStatement read;

        @Setup(Level.Trial)
        public void open() throws SQLException {
            connection = DriverManager.getConnection(BenchmarkServers.jdbcUrl(), "postgres", "");
            // the store's transaction shapes: the claim commits on its own, then the completion
            connection.setAutoCommit(false);
            claim = connection.prepareStatement("INSERT INTO raw_record (record_key, state, fingerprint, owner_token,"
                    + " lease_end) VALUES (?, 'IN_PROGRESS', ?, ?, now() + interval '60 seconds') ON CONFLICT DO NOTHING");
            complete = connection.prepareStatement("UPDATE raw_record SET state = 'COMPLETED', status = 201, body = ?,"
                    + " expires_at = now() + interval '2 minutes' WHERE record_key = ? AND owner_token = ?"
                    + " AND lease_end > now()");
            // a look-up writes nothing: one statement, no transaction to commit
            reader = DriverManager.getConnection(BenchmarkServers.jdbcUrl(), "postgres", "");
            read = reader.prepareStatement("SELECT state, fingerprint, status, body, expires_at FROM raw_record"
                    + " WHERE record_key = ?");
        }

        @TearDown(Level.Trial)
        public void close() throws SQLException {
            reader.close();
            connection.close();
        }
    }

    @Setup(Level.Trial)
    public void connect() throws SQLException {
        factory = entityManagerFactory();
        store = new JpaIdempotencyStore(new JpaRecords(new ResourceLocalTransactions(factory)));
        completeReplayKey();
        try (Connection connection = DriverManager.getConnection(BenchmarkServers.jdbcUrl(), "postgres", "");
                PreparedStatement insert = connection.prepareStatement("INSERT INTO raw_record (record_key, state,"
                        + " fingerprint, owner_token, lease_end, status, body, expires_at) VALUES (?, 'COMPLETED', ?, ?,"
                        + " now(), 201, ?, now() + interval '30 minutes')")) {
            insert.setString(1, replayKey);
            insert.setString(2, Payloads.FINGERPRINT);
            insert.setString(3, UUID.randomUUID().toString());
            insert.setBytes(4, Payloads.BODY);
            insert.executeUpdate();
        }
    }

    /** @return the benchmark's persistence unit on the benchmark database (resource-local) */
    static EntityManagerFactory entityManagerFactory() {
        return Persistence.createEntityManagerFactory("idempotency-bench", Map.of(
                "jakarta.persistence.jdbc.url", BenchmarkServers.jdbcUrl(),
                "jakarta.persistence.jdbc.user", "postgres",
                "jakarta.persistence.jdbc.password", ""));
    }

    @TearDown(Level.Trial)
    public void close() {
        factory.close();
    }

    /** Raw JDBC: the insert-if-absent and the owner-checked update, each committed on its own. */
    @Benchmark
    public boolean rawInsertThenUpdate(Keys keys, Jdbc jdbc) throws SQLException {
        String key = keys.next();
        String owner = UUID.randomUUID().toString();
        jdbc.claim.setString(1, key);
        jdbc.claim.setString(2, Payloads.FINGERPRINT);
        jdbc.claim.setString(3, owner);
        boolean claimed = jdbc.claim.executeUpdate() == 1;
        jdbc.connection.commit();
        if (!claimed) {
            return false;
        }
        jdbc.complete.setBytes(1, Payloads.BODY);
        jdbc.complete.setString(2, key);
        jdbc.complete.setString(3, owner);
        boolean completed = jdbc.complete.executeUpdate() == 1;
        jdbc.connection.commit();
        return completed;
    }

    /** Raw JDBC: one SELECT of the row by its primary key. */
    @Benchmark
    public boolean rawSelect(Jdbc jdbc) throws SQLException {
        jdbc.read.setString(1, replayKey);
        try (var rows = jdbc.read.executeQuery()) {
            return rows.next();
        }
    }
}
