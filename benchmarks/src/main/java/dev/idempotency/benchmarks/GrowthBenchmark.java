package dev.idempotency.benchmarks;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import jakarta.persistence.EntityManagerFactory;

import org.infinispan.client.hotrod.RemoteCache;
import org.infinispan.client.hotrod.RemoteCacheManager;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import dev.idempotency.jpa.JpaIdempotencyStore;
import dev.idempotency.jpa.JpaRecords;
import dev.idempotency.jpa.testing.ResourceLocalTransactions;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.store.InMemoryIdempotencyStore;

/**
 * How the cost of a first execution (claim + complete, 1 KiB answer) grows with the records a
 * store already holds: each store is filled with 1, 10,000 or 1,000,000 live completed records
 * (a 64-byte answer each, kept for 30 minutes) before the measurement, and emptied after it. The
 * measured claims add their own records (kept 1 s, in the in-memory store swept then).
 */
@State(Scope.Benchmark)
public class GrowthBenchmark {

    static final Duration LIVE_TTL = Duration.ofMinutes(30);
    static final Duration MEASURED_TTL = Duration.ofSeconds(1);
    static final StoredOutcome SMALL = StoredOutcome.of(201, Map.of("Content-Type", List.of("application/json")),
            "{\"id\":\"3f1c2a9e-8d7b-4f7e-9a61-0b2c4d6e8f10\",\"status\":\"ok\"}".getBytes(StandardCharsets.UTF_8));

    @Param({"in-memory", "infinispan", "jpa"})
    public String storeName;

    @Param({"1", "10000", "1000000"})
    public int liveKeys;

    private IdempotencyStore store;
    private RemoteCacheManager infinispan;
    private EntityManagerFactory jpa;

    @Setup(Level.Trial)
    public void fill() throws Exception {
        Keys keys = new Keys();
        switch (storeName) {
            case "in-memory" -> {
                store = new InMemoryIdempotencyStore(liveKeys + 2_000_000, System::nanoTime);
                for (int i = 0; i < liveKeys; i++) {
                    OurStoreBenchmark.claimAndComplete(store, keys.next(), SMALL, LIVE_TTL);
                }
            }
            case "infinispan" -> {
                infinispan = InfinispanStoreBenchmark.client();
                store = InfinispanStoreBenchmark.ourStore(infinispan);
                String template = keys.next();
                OurStoreBenchmark.claimAndComplete(store, template, SMALL, LIVE_TTL);
                // copies of one record as the store encoded it, in batches: a million claims would take minutes
                RemoteCache<String, Object> cache = infinispan.getCache(InfinispanStoreBenchmark.OUR_CACHE);
                Object record = cache.get(template);
                Map<String, Object> batch = new HashMap<>();
                for (int i = 1; i < liveKeys; i++) {
                    batch.put(keys.next(), record);
                    if (batch.size() == 1_000 || i == liveKeys - 1) {
                        cache.putAll(batch, LIVE_TTL.toSeconds(), TimeUnit.SECONDS);
                        batch.clear();
                    }
                }
                check(cache.size(), liveKeys);
            }
            case "jpa" -> {
                jpa = JpaStoreBenchmark.entityManagerFactory();
                store = new JpaIdempotencyStore(new JpaRecords(new ResourceLocalTransactions(jpa)));
                String template = keys.next();
                OurStoreBenchmark.claimAndComplete(store, template, SMALL, LIVE_TTL);
                try (Connection connection = connect();
                        PreparedStatement copies = connection.prepareStatement("INSERT INTO idempotency_record"
                                + " SELECT md5(i::text) || md5((-i)::text), state, fingerprint, owner_token, version,"
                                + " lease_end, expires_at, outcome_status, outcome_headers, outcome_body, body_stored,"
                                + " created_at, updated_at FROM idempotency_record, generate_series(1, ?) AS i"
                                + " WHERE record_key = ?");
                        Statement statement = connection.createStatement()) {
                    copies.setInt(1, liveKeys - 1);
                    copies.setString(2, template);
                    copies.executeUpdate();
                    statement.execute("VACUUM ANALYZE idempotency_record");
                    try (var rows = statement.executeQuery("SELECT count(*) FROM idempotency_record")) {
                        rows.next();
                        check(rows.getLong(1), liveKeys);
                    }
                }
            }
            default -> throw new IllegalArgumentException("no store " + storeName);
        }
    }

    private static void check(long live, int wanted) {
        if (live < wanted) {
            throw new IllegalStateException("the store holds " + live + " records, not " + wanted);
        }
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(BenchmarkServers.jdbcUrl(), "postgres", "");
    }

    @TearDown(Level.Trial)
    public void empty() throws SQLException {
        if (infinispan != null) {
            infinispan.getCache(InfinispanStoreBenchmark.OUR_CACHE).clear();
            infinispan.close();
        }
        if (jpa != null) {
            jpa.close();
            try (Connection connection = connect(); Statement statement = connection.createStatement()) {
                statement.execute("TRUNCATE idempotency_record");
                statement.execute("VACUUM ANALYZE idempotency_record");
            }
        }
    }

    /** A first claim and its completion with a 1 KiB answer, among {@link #liveKeys} live records. */
    @Benchmark
    public boolean firstExecution(Keys keys) {
        return OurStoreBenchmark.claimAndComplete(store, keys.next(), Payloads.OUTCOME, MEASURED_TTL);
    }
}
