package dev.idempotency.store;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.RecordDetails;
import dev.idempotency.spi.StoredOutcome;

/**
 * A store whose every operation is timed: the selected store, seen through this when an
 * observer of store latency is present (OpenTelemetry). It changes nothing else: each operation,
 * its answer and its failure are the store's.
 */
public final class TimedStore implements IdempotencyStore {

    /** Where the timings go. */
    public interface Timings {
        /**
         * @param operation the SPI operation ({@code claim}, {@code complete}, {@code markExecuted},
         *     {@code release}, {@code find}, {@code inspect})
         * @param nanos how long it took
         * @param failed whether it threw
         */
        void record(String operation, long nanos, boolean failed);
    }

    private final IdempotencyStore store;
    private final Timings timings;

    /**
     * @param store the store to time
     * @param timings where the timings go
     */
    public TimedStore(IdempotencyStore store, Timings timings) {
        this.store = Objects.requireNonNull(store, "store");
        this.timings = Objects.requireNonNull(timings, "timings");
    }

    private <T> T timed(String operation, Supplier<T> call) {
        long start = System.nanoTime();
        boolean failed = true;
        try {
            T answer = call.get();
            failed = false;
            return answer;
        } finally {
            timings.record(operation, System.nanoTime() - start, failed);
        }
    }

    @Override
    public ClaimResult claim(String key, String fingerprint, Duration lease, Duration retention) {
        return timed("claim", () -> store.claim(key, fingerprint, lease, retention));
    }

    @Override
    public boolean complete(String key, String owner, StoredOutcome outcome, Duration retention) {
        return timed("complete", () -> store.complete(key, owner, outcome, retention));
    }

    @Override
    public boolean markExecuted(String key, String owner, Duration lease, Duration retention) {
        return timed("markExecuted", () -> store.markExecuted(key, owner, lease, retention));
    }

    @Override
    public boolean release(String key, String owner) {
        return timed("release", () -> store.release(key, owner));
    }

    @Override
    public Optional<IdempotencyRecord> find(String key) {
        return timed("find", () -> store.find(key));
    }

    @Override
    public Optional<RecordDetails> inspect(String key) {
        return timed("inspect", () -> store.inspect(key));
    }

    @Override
    public boolean joinsCallerTransaction() {
        return store.joinsCallerTransaction();
    }

    @Override
    public boolean keepsRecordsInThisJvm() {
        return store.keepsRecordsInThisJvm();
    }
}
