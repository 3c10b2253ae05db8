package dev.idempotency.benchmarks;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
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
import dev.idempotency.jpa.testing.PooledDataSource;
import dev.idempotency.jpa.testing.ResourceLocalTransactions;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.support.OwnerTokens;

/**
 * The JPA store (EclipseLink) against raw JDBC doing the least an owner-safe claim and completion
 * need, on the same PostgreSQL and in the same transaction shapes: {@code INSERT ... ON CONFLICT
 * DO NOTHING} committed on its own, then an owner-checked {@code UPDATE} committed in another. The
 * store twice: {@code ours*} in resource-local transactions of its own (as inside a caller's
 * transaction, or where the store has no datasource), and {@code oursStatements*} on a datasource
 * whose connections a pool keeps, each statement committed on its own (as every HTTP request's
 * claim and completion on a Jakarta EE server: no transaction on the thread). The raw floors hold a
 * connection and its prepared statements per thread ({@code raw*}), or take a connection from the
 * pool {@code oursStatements*} uses for every statement ({@code rawPooled*}).
 */
@State(Scope.Benchmark)
public class JpaStoreBenchmark extends OurStoreBenchmark {


    private static final String CLAIM = "INSERT INTO raw_record (record_key, state, fingerprint, owner_token,"
            + " lease_end) VALUES (?, 'IN_PROGRESS', ?, ?, now() + interval '60 seconds') ON CONFLICT DO NOTHING";
    private static final String COMPLETE = "UPDATE raw_record SET state = 'COMPLETED', status = 201, body = ?,"
            + " expires_at = now() + interval '2 minutes' WHERE record_key = ? AND owner_token = ? AND lease_end > now()";

    private static final String SELECT = "SELECT state, fingerprint, status, body, expires_at FROM raw_record"
            + " WHERE record_key = ?";

    private EntityManagerFactory factory;
    private PooledDataSource dataSource;
    private IdempotencyStore statements;

    /** One JDBC connection per benchmark thread, as a pool would hand out. */
    @State(Scope.Thread)
    public static class Jdbc {
        Connection connection;
        Connection reader;
        Connection autoCommitted;
        PreparedStatement claim;
        PreparedStatement complete;
        PreparedStatement read;
        PreparedStatement claimAlone;
        PreparedStatement completeAlone;

        @Setup(Level.Trial)
        public void open() throws SQLException {
            connection = DriverManager.getConnection(BenchmarkServers.jdbcUrl(), "postgres", "");
            // the store's transaction shapes: the claim commits on its own, then the completion
            connection.setAutoCommit(false);
            claim = connection.prepareStatement(CLAIM);
            complete = connection.prepareStatement(COMPLETE);
            // a look-up writes nothing: one statement, no transaction to commit
            reader = DriverManager.getConnection(BenchmarkServers.jdbcUrl(), "postgres", "");
            read = reader.prepareStatement(SELECT);
            // the same two statements, each committed by itself (auto-commit: no COMMIT round trip)
            autoCommitted = DriverManager.getConnection(BenchmarkServers.jdbcUrl(), "postgres", "");
            claimAlone = autoCommitted.prepareStatement(CLAIM);
            completeAlone = autoCommitted.prepareStatement(COMPLETE);
        }

        @TearDown(Level.Trial)
        public void close() throws SQLException {
            autoCommitted.close();
            reader.close();
            connection.close();
        }
    }

    @Setup(Level.Trial)
    public void connect() throws SQLException {
        factory = entityManagerFactory();
        store = new JpaIdempotencyStore(new JpaRecords(new ResourceLocalTransactions(factory)));
        completeReplayKey();
        dataSource = new PooledDataSource(BenchmarkServers.jdbcUrl(), "postgres");
        statements = new JpaIdempotencyStore(new JpaRecords(new ResourceLocalTransactions(factory, dataSource)));
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
    public void close() throws SQLException {
        dataSource.close();
        factory.close();
    }

    /** Ours, each statement committed on its own on the datasource: an HTTP request's claim and completion. */
    @Benchmark
    public boolean oursStatementsClaimAndComplete(Keys keys) {
        return claimAndComplete(statements, keys.next(), Payloads.OUTCOME, TTL);
    }

    /** Ours, one query on the datasource: a look-up on a thread without a transaction. */
    @Benchmark
    public Optional<IdempotencyRecord> oursStatementsReplayLookup() {
        return statements.find(replayKey);
    }

    /** Raw JDBC: the insert-if-absent and the owner-checked update, each in a transaction of its own. */
    @Benchmark
    public boolean rawInsertThenUpdate(Keys keys, Jdbc jdbc) throws SQLException {
        return insertThenUpdate(keys.next(), jdbc.claim, jdbc.complete, jdbc.connection);
    }

    /** Raw JDBC: the same two statements, each committed by itself (auto-commit), as the HTTP floor makes them. */
    @Benchmark
    public boolean rawAutoCommittedInsertThenUpdate(Keys keys, Jdbc jdbc) throws SQLException {
        return insertThenUpdate(keys.next(), jdbc.claimAlone, jdbc.completeAlone, null);
    }

    /** @param transactions the connection to commit after each statement, or null where each commits itself */
    private static boolean insertThenUpdate(String key, PreparedStatement claim, PreparedStatement complete,
            Connection transactions) throws SQLException {
        String owner = OwnerTokens.next();
        bindClaim(claim, key, owner);
        boolean claimed = claim.executeUpdate() == 1;
        if (transactions != null) {
            transactions.commit();
        }
        if (!claimed) {
            return false;
        }
        bindCompletion(complete, key, owner);
        boolean completed = complete.executeUpdate() == 1;
        if (transactions != null) {
            transactions.commit();
        }
        return completed;
    }

    /**
     * Raw JDBC through the pool ours uses: a connection taken from it per statement (a claim and
     * its completion are apart, the business method between them) and the statement prepared on
     * it, as code on a Jakarta EE server does; each statement committed by itself. Ours on the
     * datasource against the same work, with the pool's share in both.
     */
    @Benchmark
    public boolean rawPooledInsertThenUpdate(Keys keys) throws SQLException {
        String key = keys.next();
        String owner = OwnerTokens.next();
        try (Connection connection = dataSource.getConnection()) {
            try (PreparedStatement claim = connection.prepareStatement(CLAIM)) {
                bindClaim(claim, key, owner);
                if (claim.executeUpdate() != 1) {
                    return false;
                }
            }
        }
        try (Connection connection = dataSource.getConnection();
                PreparedStatement complete = connection.prepareStatement(COMPLETE)) {
            bindCompletion(complete, key, owner);
            return complete.executeUpdate() == 1;
        }
    }

    private static void bindClaim(PreparedStatement claim, String key, String owner) throws SQLException {
        claim.setString(1, key);
        claim.setString(2, Payloads.FINGERPRINT);
        claim.setString(3, owner);
    }

    private static void bindCompletion(PreparedStatement complete, String key, String owner) throws SQLException {
        complete.setBytes(1, Payloads.BODY);
        complete.setString(2, key);
        complete.setString(3, owner);
    }

    /** Raw JDBC through the pool ours uses: the SELECT prepared on a connection taken from it. */
    @Benchmark
    public boolean rawPooledSelect() throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement read = connection.prepareStatement(SELECT)) {
            read.setString(1, replayKey);
            try (var rows = read.executeQuery()) {
                return rows.next();
            }
        }
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
