package dev.idempotency.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;

import org.infinispan.client.hotrod.DataFormat;
import org.infinispan.client.hotrod.RemoteCache;
import org.infinispan.client.hotrod.RemoteCacheManager;
import org.infinispan.commons.dataconversion.MediaType;
import org.infinispan.commons.marshall.IdentityMarshaller;

import dev.idempotency.infinispan.InfinispanConnection;
import dev.idempotency.infinispan.InfinispanIdempotencyStore;
import dev.idempotency.infinispan.InfinispanSettings;
import dev.idempotency.jpa.JpaIdempotencyStore;
import dev.idempotency.jpa.JpaRecords;
import dev.idempotency.jpa.testing.ResourceLocalTransactions;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.store.InMemoryIdempotencyStore;

/**
 * What a stored record of a 1 KiB answer costs in each store, and whether the space comes back
 * once records expire: measured in the runner's own JVM, against the runner's servers.
 */
final class StorageFootprint {

    private static final int JPA_RECORDS = 10_000;
    private static final int MEMORY_KEYS = 1_000_000;

    private StorageFootprint() {
    }

    /**
     * @param stores the stores whose servers run
     * @param inMemory whether to measure the in-memory store too
     * @return the table of BENCHMARKS.md's "Memory and growth"
     */
    static String measure(Set<String> stores, boolean inMemory) throws Exception {
        StringBuilder table = new StringBuilder("\n### Memory and growth\n\n| store | measured | result |\n|---|---|---|\n");
        if (stores.contains("infinispan")) {
            infinispan(table);
        }
        if (stores.contains("jpa")) {
            jpa(table);
        }
        if (stores.contains("redis")) {
            redis(table);
        }
        if (inMemory) {
            inMemory(table);
        }
        return table.toString();
    }

    /**
     * Redis: measured by {@link RedisFootprint} in a JVM of its own, on the Redis benchmark's class
     * path (Lettuce needs Netty 4.2, this JVM has the Hot Rod client's 4.1).
     */
    private static void redis(StringBuilder table) throws IOException, InterruptedException {
        Path out = Files.createTempFile("redis-footprint", ".md");
        try {
            Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", StoreBenchmarks.redisClassPath(),
                    "-D" + BenchmarkServers.REDIS_PORT + "=" + BenchmarkServers.redisPort(),
                    RedisFootprint.class.getName(), out.toString()).inheritIO().start();
            if (!child.waitFor(5, TimeUnit.MINUTES)) {
                child.destroyForcibly();
                throw new IllegalStateException("the Redis footprint did not end within 5 minutes");
            }
            if (child.exitValue() != 0) {
                throw new IllegalStateException("the Redis footprint failed (exit " + child.exitValue() + ")");
            }
            table.append(Files.readString(out));
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static void infinispan(StringBuilder table) {
        RemoteCacheManager manager = new RemoteCacheManager(InfinispanConnection.clientConfiguration(BenchmarkServers.hotRodClient()));
        try {
            IdempotencyStore store = new InfinispanIdempotencyStore(new InfinispanConnection(manager,
                    new InfinispanSettings("idempotency-footprint", InfinispanStoreBenchmark.CACHE_CONFIGURATION)));
            String key = OurStoreBenchmark.completeOne(store, OurStoreBenchmark.TTL);
            RemoteCache<String, byte[]> stored = manager.<String, byte[]>getCache("idempotency-footprint").withDataFormat(
                    DataFormat.builder().valueType(MediaType.APPLICATION_PROTOSTREAM).valueMarshaller(IdentityMarshaller.INSTANCE)
                            .build());
            byte[] value = stored.get(key);
            table.append(String.format(Locale.ROOT, "| Infinispan | the value of a completed record, as the server stores it"
                    + " (ProtoStream), with a %,d-byte answer | %,d bytes (+ the %d-character key) |%n",
                    Payloads.BODY.length, value.length, key.length()));
        } finally {
            manager.close();
        }
    }

    private static void jpa(StringBuilder table) throws SQLException, InterruptedException {
        try (Connection sql = DriverManager.getConnection(BenchmarkServers.jdbcUrl(), "postgres", "");
                Statement statement = sql.createStatement()) {
            statement.execute("TRUNCATE idempotency_record");
            statement.execute("VACUUM FULL idempotency_record");
            EntityManagerFactory factory = Persistence.createEntityManagerFactory("idempotency-bench", Map.of(
                    "jakarta.persistence.jdbc.url", BenchmarkServers.jdbcUrl(),
                    "jakarta.persistence.jdbc.user", "postgres",
                    "jakarta.persistence.jdbc.password", ""));
            try {
                JpaRecords records = new JpaRecords(new ResourceLocalTransactions(factory));
                IdempotencyStore store = new JpaIdempotencyStore(records);
                long empty = tableBytes(statement);
                for (int i = 0; i < JPA_RECORDS; i++) {
                    OurStoreBenchmark.completeOne(store, Duration.ofSeconds(2));
                }
                long full = tableBytes(statement);
                Thread.sleep(2_500);
                int purged = records.purge(1_000, Duration.ofSeconds(1), 100);
                statement.execute("VACUUM idempotency_record");
                for (int i = 0; i < JPA_RECORDS; i++) {
                    OurStoreBenchmark.completeOne(store, OurStoreBenchmark.TTL);
                }
                long again = tableBytes(statement);
                table.append(String.format(Locale.ROOT, "| JPA on PostgreSQL | table, TOAST and indexes per completed record"
                        + " (%,d records of a %,d-byte answer) | %,d bytes |%n", JPA_RECORDS, Payloads.BODY.length,
                        (full - empty) / JPA_RECORDS));
                table.append(String.format(Locale.ROOT, "| JPA on PostgreSQL | after the ttl: purged, `VACUUM`, then %,d new"
                        + " records | %,d rows purged; the table grew by %,d bytes (space reused: %s) |%n", JPA_RECORDS, purged,
                        again - full, again - full < (full - empty) / 2 ? "yes" : "no"));
            } finally {
                factory.close();
            }
        }
    }

    private static void inMemory(StringBuilder table) throws InterruptedException {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(MEMORY_KEYS + 1, System::nanoTime);
        long baseline = liveHeap();
        int largest = 0;
        long started = System.nanoTime();
        for (int i = 0; i < MEMORY_KEYS; i++) {
            OurStoreBenchmark.completeOne(store, Duration.ofSeconds(1));
            if ((i & 0xFFFF) == 0) {
                largest = Math.max(largest, store.size());
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        long filled = liveHeap();
        Thread.sleep(1_500);
        store.find("sweep"); // a look-up sweeps the expired records
        long after = liveHeap();
        table.append(String.format(Locale.ROOT, "| in-memory | %,d keys with a 1 s ttl (%,.0f claims + completions a second,"
                + " one JVM), then the ttl | at most %,d live records seen; heap %+,d MiB over the baseline when the last was"
                + " written, %+,d MiB after the ttl, %,d records left |%n", MEMORY_KEYS, MEMORY_KEYS / seconds, largest,
                (filled - baseline) >> 20, (after - baseline) >> 20, store.size()));
    }

    private static long tableBytes(Statement statement) throws SQLException {
        try (ResultSet size = statement.executeQuery("SELECT pg_total_relation_size('idempotency_record')")) {
            size.next();
            return size.getLong(1);
        }
    }

    private static long liveHeap() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            memory.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
