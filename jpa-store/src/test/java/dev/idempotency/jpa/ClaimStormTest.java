package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;

/**
 * The HTTP storm's shape against the real PostgreSQL: many callers claim one key at once, the
 * winner completes at once, the others keep retrying; exactly one acquires, and the record ends
 * COMPLETED with the winner's outcome.
 */
class ClaimStormTest extends PostgreSqlRecords {


    @Test
    void oneOfFiftyAcquiresAndTheRecordEndsCompleted() throws Exception {
        StoredOutcome outcome = StoredOutcome.of(201, Map.of(), "{\"id\":1}".getBytes(StandardCharsets.UTF_8));
        ExecutorService pool = Executors.newFixedThreadPool(50);
        try {
            for (int round = 0; round < 10; round++) {
                String key = "storm-" + round + "-" + System.nanoTime();
                AtomicInteger acquired = new AtomicInteger();
                CountDownLatch start = new CountDownLatch(1);
                List<Future<?>> callers = new ArrayList<>();
                for (int t = 0; t < 50; t++) {
                    callers.add(pool.submit(() -> {
                        start.await();
                        for (int attempt = 0; attempt < 3; attempt++) {
                            ClaimResult result = records.claim(key, "fp", Duration.ofMinutes(1));
                            if (result instanceof ClaimResult.Acquired won) {
                                acquired.incrementAndGet();
                                assertThat(records.complete(key, won.owner(), outcome, Duration.ofHours(24))).isTrue();
                            }
                        }
                        return null;
                    }));
                }
                start.countDown();
                for (Future<?> caller : callers) {
                    caller.get(60, TimeUnit.SECONDS);
                }
                assertThat(acquired.get()).as("round " + round).isEqualTo(1);
                assertThat(records.find(key)).get().extracting(r -> r.state()).isEqualTo(RecordState.COMPLETED);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
