package dev.idempotency.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.StoredOutcome;

class ReplayCacheTest {

    static final Duration DAY = Duration.ofDays(1);

    private final AtomicLong nanos = new AtomicLong(1_000);
    private final ReplayCache cache = new ReplayCache(64 * 1024, Duration.ofSeconds(30), nanos::get);

    static IdempotencyRecord completed(String key, int bodyBytes) {
        return IdempotencyRecord.completed(key, "fp-" + key,
                StoredOutcome.of(201, Map.of("Location", List.of("/payments/1")), new byte[bodyBytes]));
    }

    @Test
    void aCompletedRecordIsAnsweredFromTheCacheUntilItsTtl() {
        IdempotencyRecord record = completed("k1", 100);
        cache.remember(record, DAY);

        nanos.addAndGet(Duration.ofSeconds(29).toNanos());
        assertThat(cache.find("k1")).isSameAs(record);
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        assertThat(cache.find("k1")).isNull();
        assertThat(cache.size()).isZero();
        assertThat(cache.bytes()).isZero();
    }

    @Test
    void neverLongerThanTheEndpointsRetention() {
        cache.remember(completed("k1", 100), Duration.ofSeconds(5));

        nanos.addAndGet(Duration.ofSeconds(5).toNanos());
        assertThat(cache.find("k1")).isNull();
    }

    @Test
    void recordsThatAreNotFinalAreNeverKept() {
        cache.remember(IdempotencyRecord.inProgress("a", "fp"), DAY);
        cache.remember(IdempotencyRecord.executed("b", "fp"), DAY);
        cache.remember(IdempotencyRecord.outcomeLost("c", "fp"), DAY);

        assertThat(cache.find("a")).isNull();
        assertThat(cache.find("b")).isNull();
        assertThat(cache.find("c")).isNull();
        assertThat(cache.size()).isZero();
    }

    @Test
    void boundedByBytesOldestOut() {
        for (int i = 0; i < 100; i++) {
            cache.remember(completed("k" + i, 1000), DAY);
            assertThat(cache.bytes()).isLessThanOrEqualTo(64 * 1024);
        }
        assertThat(cache.find("k0")).isNull();
        assertThat(cache.find("k99")).isNotNull();
        assertThat(cache.size()).isBetween(40, 64 * 1024 / 1000);
    }

    @Test
    void oneLargeAnswerIsNotKept() {
        cache.remember(completed("small", 100), DAY);
        cache.remember(completed("large", 64 * 1024 / 16), DAY);

        assertThat(cache.find("large")).isNull();
        assertThat(cache.find("small")).isNotNull();
    }

    @Test
    void rememberingAKeyAgainReplacesItsEntry() {
        cache.remember(completed("k1", 1000), DAY);
        long once = cache.bytes();
        cache.remember(completed("k1", 1000), DAY);

        assertThat(cache.size()).isEqualTo(1);
        assertThat(cache.bytes()).isEqualTo(once);
    }

    @Test
    void zeroBytesOrZeroTtlTurnsItOff() {
        for (ReplayCache off : List.of(new ReplayCache(0, Duration.ofSeconds(30), nanos::get),
                new ReplayCache(1 << 20, Duration.ZERO, nanos::get), ReplayCache.off())) {
            off.remember(completed("k1", 10), DAY);
            assertThat(off.enabled()).isFalse();
            assertThat(off.find("k1")).isNull();
        }
    }
}
