package dev.idempotency.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;

import dev.idempotency.redis.RedisConnection;
import dev.idempotency.redis.RedisIdempotencyStore;
import dev.idempotency.redis.RedisSettings;
import dev.idempotency.spi.IdempotencyStore;

/**
 * What a completed record of a 1 KiB answer costs in the Redis store: {@code MEMORY USAGE} of
 * sampled records (key, value and Redis' overhead for them), the growth of {@code used_memory}
 * per record, and whether the memory comes back once records expire. Run by
 * {@link StorageFootprint} in a JVM of its own, on the Redis benchmark's class path; writes its
 * table rows to the file given as the only argument.
 */
public final class RedisFootprint {

    private static final int RECORDS = 10_000;
    private static final int SAMPLE = 100;

    private RedisFootprint() {
    }

    public static void main(String[] args) throws Exception {
        RedisClient client = RedisStoreBenchmark.client();
        try (StatefulRedisConnection<String, String> connection = client.connect(StringCodec.UTF8)) {
            RedisCommands<String, String> redis = connection.sync();
            RedisSettings settings = RedisStoreBenchmark.settings();
            IdempotencyStore store = new RedisIdempotencyStore(new RedisConnection(client, settings));
            StringBuilder rows = new StringBuilder();

            redis.flushdb();
            long empty = usedMemory(redis);
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                keys.add(OurStoreBenchmark.completeOne(store, OurStoreBenchmark.TTL));
            }
            long full = usedMemory(redis);
            long sampled = 0;
            for (int i = 0; i < SAMPLE; i++) {
                sampled += redis.memoryUsage(settings.keyPrefix() + keys.get(i * (RECORDS / SAMPLE)));
            }
            long value = redis.strlen(settings.keyPrefix() + keys.get(0));
            rows.append(String.format(Locale.ROOT, "| Redis | `MEMORY USAGE` of a completed record (key, value and its"
                    + " overhead; mean of %d of %,d records of a %,d-byte answer) | %,d bytes (a %,d-byte value under a"
                    + " %d-character key); `used_memory` grew by %,d bytes per record |%n", SAMPLE, RECORDS,
                    Payloads.BODY.length, sampled / SAMPLE, value, (settings.keyPrefix() + keys.get(0)).length(),
                    (full - empty) / RECORDS));

            redis.flushdb();
            long before = usedMemory(redis);
            for (int i = 0; i < RECORDS; i++) {
                OurStoreBenchmark.completeOne(store, Duration.ofSeconds(1));
            }
            long written = usedMemory(redis);
            Thread.sleep(3_000); // Redis' active expiry cycle reclaims expired keys within a few hundred ms
            long left = redis.dbsize();
            long after = usedMemory(redis);
            rows.append(String.format(Locale.ROOT, "| Redis | %,d records with a 1 s ttl, then 3 s | %,d keys left;"
                    + " `used_memory` %+,d bytes over the empty server when written, %+,d bytes after the ttl |%n",
                    RECORDS, left, written - before, after - before));
            redis.flushdb();
            Files.writeString(Path.of(args[0]), rows);
        } finally {
            client.shutdown();
        }
    }

    private static long usedMemory(RedisCommands<String, String> redis) {
        for (String line : redis.info("memory").split("\r?\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()).trim());
            }
        }
        throw new IllegalStateException("INFO memory has no used_memory");
    }
}
