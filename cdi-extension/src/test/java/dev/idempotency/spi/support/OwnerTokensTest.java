package dev.idempotency.spi.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;

class OwnerTokensTest {

    @Test
    void tokensMadeAtOnceOnManyThreadsNeverRepeatAndFitAUuidColumn() throws Exception {
        Set<String> seen = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 50_000; i++) {
                        String token = OwnerTokens.next();
                        assertThat(seen.add(token)).as("token %s made twice", token).isTrue();
                        assertThat(UUID.fromString(token).toString()).isEqualTo(token);
                    }
                    return null;
                }));
            }
            for (Future<?> each : done) {
                each.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(seen).hasSize(400_000);
    }
}
