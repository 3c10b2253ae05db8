package dev.idempotency.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.StoredOutcome;

/**
 * The in-memory store's documented memory bound: a completed record costs its stored body plus
 * at most 1 KiB (key, fingerprint, owner, headers, map entry), so a full store holds at most
 * {@code idempotency.memory.max-entries} x (1 KiB + the largest stored body); in fact about half
 * of that KiB. Measured on the heap after collections, with 50,000 records of a 1 KiB answer.
 */
class InMemoryStoreFootprintTest {

    static final int RECORDS = 50_000;

    @Test
    void aCompletedRecordCostsItsBodyPlusAtMostOneKiB() {
        byte[] body = ("{\"n\":1,\"padding\":\"" + "p".repeat(1000) + "\"}").getBytes(StandardCharsets.UTF_8);
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(RECORDS, System::nanoTime);
        long before = liveHeap();
        for (int i = 0; i < RECORDS; i++) {
            // keys as the library makes them: a SHA-256 in hex
            String key = String.format("%064x", i);
            ClaimResult.Acquired claim = (ClaimResult.Acquired) store.claim(key, String.format("%064x", -i), Duration.ofMinutes(1));
            store.complete(key, claim.owner(), StoredOutcome.of(201, Map.of("Location", List.of("/api/payments/" + i),
                    "Content-Type", List.of("application/json")), body.clone()), Duration.ofMinutes(10));
        }
        long perRecord = (liveHeap() - before) / RECORDS;
        System.out.println("in-memory store: " + perRecord + " bytes per record of a " + body.length + "-byte answer");
        assertThat(store.size()).isEqualTo(RECORDS);
        assertThat(perRecord).as("the documented bound").isLessThanOrEqualTo(body.length + 1024L);
        // Its shape: the outcome one byte array, no owner once completed (CompactOutcome). The
        // record stays alive for its ttl and every collection copies it: 848 bytes beyond the body
        // with a map of header lists (1,868 a record), 421 since.
        assertThat(perRecord - body.length).as("bytes beyond the body").isLessThanOrEqualTo(512);
    }

    private static long liveHeap() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            memory.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
