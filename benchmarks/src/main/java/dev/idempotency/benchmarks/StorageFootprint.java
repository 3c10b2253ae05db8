package dev.idempotency.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

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
import dev.idempotency.spi.StoredOutcome;
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

    /** @return the table of BENCHMARKS.md's "Memory and growth" */
    static String measure() throws Exception {
        StringBuilder table = new StringBuilder("\n### Memory and growth\n\n| store | measured | result |\n|---|---|---|\n");
        infinispan(table);
        jpa(table);
        inMemory(table);
        return table.toString();
    }

    private static void infinispan(StringBuilder table) {
        RemoteCacheManager manager = new RemoteCacheManager(InfinispanConnection.clientConfiguration(BenchmarkServers.hotRodClient()));
        try {
            IdempotencyStore store = new InfinispanIdempotencyStore(new InfinispanConnection(manager,
                    new InfinispanSettings("idempotency-footprint", InfinispanStoreBenchmark.CACHE_CONFIGURATION)));
            String key = completeOne(store, OurStoreBenchmark.TTL);
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
                    completeOne(store, Duration.ofSeconds(2));
                }
                long full = tableBytes(statement);
                Thread.sleep(2_500);
                int purged = records.purge(1_000, Duration.ofSeconds(1), 100);
                statement.execute("VACUUM idempotency_record");
                for (int i = 0; i < JPA_RECORDS; i++) {
                    completeOne(store, OurStoreBenchmark.TTL);
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
            completeOne(store, Duration.ofSeconds(1));
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

    /** @return the key of a record claimed and completed with the 1 KiB answer (its own copy of the body) */
    private static String completeOne(IdempotencyStore store, Duration ttl) {
        String key = new Keys().next();
        OurStoreBenchmark.claimAndComplete(store, key,
                StoredOutcome.of(Payloads.OUTCOME.status(), Payloads.OUTCOME.headers(), Payloads.BODY.clone()), ttl);
        return key;
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
