package dev.idempotency.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.contract.IdempotencyStoreContractTest;

/**
 * A timed store keeps the store contract (it only times the in-memory store it wraps) and reports
 * each operation, failed ones too.
 */
class TimedStoreTest extends IdempotencyStoreContractTest {

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final List<String> timed = new CopyOnWriteArrayList<>();

    @Override
    protected IdempotencyStore createStore() {
        return new TimedStore(new InMemoryIdempotencyStore(1_000_000, clock::get),
                (operation, nanos, failed) -> timed.add(operation + (failed ? " failed" : "")));
    }

    @Override
    protected void elapse(Duration duration) {
        clock.addAndGet(duration.toNanos() + 1);
    }

    @Test
    void eachOperationIsReportedOnceAndAFailureAsOne() {
        String owner = ((dev.idempotency.spi.ClaimResult.Acquired) store().claim("k", "fp", LONG)).owner();
        store().markExecuted("k", owner, LONG, LONG);
        store().find("k");
        store().inspect("k");
        IdempotencyStore full = new TimedStore(new InMemoryIdempotencyStore(1, clock::get),
                (operation, nanos, failed) -> timed.add(operation + (failed ? " failed" : "")));
        full.claim("a", "fp", LONG);

        assertThatThrownBy(() -> full.claim("b", "fp", LONG)).isInstanceOf(IdempotencyStoreException.class);

        assertThat(timed).containsExactly("claim", "markExecuted", "find", "inspect", "claim", "claim failed");
        assertThat(store().keepsRecordsInThisJvm()).as("the wrapped store's answer").isTrue();
    }
}
