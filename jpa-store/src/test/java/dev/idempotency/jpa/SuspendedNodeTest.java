package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.idempotency.jpa.testing.PooledDataSource;
import dev.idempotency.jpa.testing.ResourceLocalTransactions;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.RecordState;

/**
 * A node suspended (its VM paused, the machine put to sleep) while its method ran: its monotonic
 * clock stood still meanwhile, so the database time it carries forward fell behind by the
 * suspend. A completion or a mark in the caller's transaction does not read the database again,
 * and wrote the record's expiry that much early: a key completed with a five-minute retention
 * after a ten-minute suspend was free again at once, and its retry ran a second time. The same on
 * an HTTP request's path, where the completion is one statement on the store's datasource.
 */
class SuspendedNodeTest extends PostgreSqlRecords {

    private static final Duration LEASE = Duration.ofMinutes(1);
    private static final Duration RETENTION = Duration.ofMinutes(5);
    private static final long SUSPEND_NANOS = TimeUnit.MINUTES.toNanos(10);

    /** The suspended node: its monotonic clock is behind the real one by what {@link #suspend} let pass. */
    private final AtomicLong stoodStill = new AtomicLong();
    private final JpaRecords suspended = new JpaRecords(new ResourceLocalTransactions(factory),
            () -> System.nanoTime() - stoodStill.get(), System::currentTimeMillis);

    private void suspend() {
        stoodStill.addAndGet(SUSPEND_NANOS);
    }

    @Test
    void aKeyCompletedAfterTheNodeWasSuspendedIsKeptForItsWholeRetention() {
        String key = "suspended-complete-" + System.nanoTime();
        String owner = ((ClaimResult.Acquired) suspended.claim(key, "fp", LEASE, RETENTION)).owner();
        suspend();

        assertThat(suspended.complete(key, owner, PurgeTest.OUTCOME, RETENTION)).isTrue();

        assertThat(records.claim(key, "fp", LEASE, RETENTION)).as("another node's retry right after the completion")
                .isInstanceOfSatisfying(ClaimResult.Existing.class,
                        existing -> assertThat(existing.record().state()).isEqualTo(RecordState.COMPLETED));
    }

    @Test
    void aKeyCompletedByOneStatementAfterTheNodeWasSuspendedIsKeptForItsWholeRetention() throws Exception {
        try (PooledDataSource dataSource = new PooledDataSource("jdbc:postgresql://127.0.0.1:5432/test", "postgres")) {
            JpaRecords onItsDataSource = new JpaRecords(new ResourceLocalTransactions(factory, dataSource),
                    () -> System.nanoTime() - stoodStill.get(), System::currentTimeMillis);
            String key = "suspended-statement-" + System.nanoTime();
            String owner = ((ClaimResult.Acquired) onItsDataSource.claim(key, "fp", LEASE, RETENTION)).owner();
            suspend();

            assertThat(onItsDataSource.complete(key, owner, PurgeTest.OUTCOME, RETENTION)).isTrue();

            assertThat(records.claim(key, "fp", LEASE, RETENTION)).as("another node's retry right after the completion")
                    .isInstanceOfSatisfying(ClaimResult.Existing.class,
                            existing -> assertThat(existing.record().state()).isEqualTo(RecordState.COMPLETED));
        }
    }

    @Test
    void aKeyMarkedExecutedAfterTheNodeWasSuspendedIsKeptForItsWholeRetention() {
        String key = "suspended-mark-" + System.nanoTime();
        String owner = ((ClaimResult.Acquired) suspended.claim(key, "fp", LEASE, RETENTION)).owner();
        suspend();

        assertThat(suspended.markExecuted(key, owner, LEASE, RETENTION)).isTrue();

        assertThat(records.claim(key, "fp", LEASE, RETENTION)).as("another node's retry right after the mark")
                .isInstanceOfSatisfying(ClaimResult.Existing.class,
                        existing -> assertThat(existing.record().state()).isEqualTo(RecordState.EXECUTED));
    }
}
