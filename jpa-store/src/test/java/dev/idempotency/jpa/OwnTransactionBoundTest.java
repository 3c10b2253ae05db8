package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.idempotency.jpa.testing.ResourceLocalTransactions;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.spi.support.TransactionGuard;

/**
 * Claims made while the caller's transaction is open run their transactions on threads of the
 * store's own, each holding a second connection: at most {@code idempotency.jpa.max-own-transactions}
 * at a time. Past the bound a claim fails at once (the library answers 503) instead of waiting for
 * a thread or a connection until the 30 s timeout; the others run to their end.
 */
class OwnTransactionBoundTest extends PostgreSqlRecords {

    private static final String URL = "jdbc:postgresql://127.0.0.1:5432/test";
    private static final Duration LEASE = Duration.ofMinutes(1);
    private static final int BOUND = 3;
    private static final int EXTRA = 4;

    @Test
    void pastTheBoundAClaimFailsFastAndNoneHangs() throws Exception {
        SeparateRecordTransactions own = new SeparateRecordTransactions(new ResourceLocalTransactions(factory),
                () -> true, Executors.defaultThreadFactory(), BOUND);
        JpaRecords store = new JpaRecords(own);
        ExecutorService callers = Executors.newFixedThreadPool(BOUND + EXTRA);
        try (Connection blocker = DriverManager.getConnection(URL, "postgres", "");
                Statement statement = blocker.createStatement()) {
            assertThat(store.claim("warm-up", "fp", LEASE)).isInstanceOf(ClaimResult.Acquired.class);
            // an uncommitted row for the key: every claim's insert waits for it, holding its thread and connection
            blocker.setAutoCommit(false);
            statement.executeUpdate("INSERT INTO idempotency_record (record_key, state, fingerprint, owner_token, version,"
                    + " lease_end, expires_at, created_at, updated_at) VALUES ('slow', 'IN_PROGRESS', 'fp', 'blocker', 1,"
                    + " LOCALTIMESTAMP + INTERVAL '1 hour', LOCALTIMESTAMP + INTERVAL '1 hour', LOCALTIMESTAMP, LOCALTIMESTAMP)");

            List<Future<ClaimResult>> running = new ArrayList<>();
            for (int i = 0; i < BOUND; i++) {
                running.add(callers.submit(() -> store.claim("slow", "fp", LEASE)));
            }
            awaitWaitingSessions(BOUND);

            List<Future<Long>> extras = new ArrayList<>();
            for (int i = 0; i < EXTRA; i++) {
                extras.add(callers.submit(() -> {
                    long start = System.nanoTime();
                    assertThatThrownBy(() -> store.claim("slow", "fp", LEASE))
                            .isInstanceOf(IdempotencyStoreException.class)
                            .hasMessageContaining("IDEMP0511")
                            .hasMessageContaining(SeparateRecordTransactions.MAX_OWN_TRANSACTIONS);
                    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                }));
            }
            try {
                for (Future<Long> extra : extras) {
                    assertThat(extra.get(5, TimeUnit.SECONDS)).as("ms until a claim past the bound failed")
                            .isLessThan(2_000);
                }
            } finally {
                blocker.rollback();
            }
            int acquired = 0;
            for (Future<ClaimResult> claim : running) {
                if (claim.get(10, TimeUnit.SECONDS) instanceof ClaimResult.Acquired) {
                    acquired++;
                }
            }
            assertThat(acquired).as("the claims within the bound ran to their end: one of them won the key").isEqualTo(1);
            assertThat(store.claim("after", "fp", LEASE)).as("the threads are free again")
                    .isInstanceOf(ClaimResult.Acquired.class);
        } finally {
            callers.shutdownNow();
            own.stop();
        }
    }

    /**
     * A completion made from the caller's {@code afterCompletion} of a transaction that committed
     * (the committed transaction still on the thread) needs a transaction of the store's own. With
     * every one of them busy it waits for one instead of being refused: refused, the work's result
     * would never be stored, and its retries would be told it was lost.
     */
    @Test
    void theCompletionOfCommittedWorkWaitsForAFreeTransactionInsteadOfBeingLost() throws Exception {
        SeparateRecordTransactions own = new SeparateRecordTransactions(new ResourceLocalTransactions(factory),
                () -> true, Executors.defaultThreadFactory(), 1);
        JpaRecords store = new JpaRecords(own);
        ExecutorService callers = Executors.newFixedThreadPool(2);
        try (Connection blocker = DriverManager.getConnection(URL, "postgres", "");
                Statement statement = blocker.createStatement()) {
            ClaimResult.Acquired paid = (ClaimResult.Acquired) store.claim("paid", "fp", LEASE);
            blocker.setAutoCommit(false);
            statement.executeUpdate("INSERT INTO idempotency_record (record_key, state, fingerprint, owner_token, version,"
                    + " lease_end, expires_at, created_at, updated_at) VALUES ('busy', 'IN_PROGRESS', 'fp', 'blocker', 1,"
                    + " LOCALTIMESTAMP + INTERVAL '1 hour', LOCALTIMESTAMP + INTERVAL '1 hour', LOCALTIMESTAMP, LOCALTIMESTAMP)");
            Future<ClaimResult> busy = callers.submit(() -> store.claim("busy", "fp", LEASE));
            awaitWaitingSessions(1); // the only own transaction waits for the blocker's row

            own.callerEnded = () -> true; // the paid work's transaction committed: its afterCompletion
            Future<Boolean> completion = callers.submit(() -> store.complete("paid", paid.owner(),
                    StoredOutcome.of(201, Map.of(), "receipt 42".getBytes(StandardCharsets.UTF_8)), Duration.ofHours(1)));
            Thread.sleep(500);
            blocker.rollback(); // the busy transaction ends, and frees its place

            assertThat(completion.get(10, TimeUnit.SECONDS)).as("completed, not refused").isTrue();
            assertThat(busy.get(10, TimeUnit.SECONDS)).isInstanceOf(ClaimResult.Acquired.class);
            IdempotencyRecord stored = store.find("paid").orElseThrow();
            assertThat(stored.state()).isEqualTo(RecordState.COMPLETED);
            assertThat(stored.outcome().body()).isEqualTo("receipt 42".getBytes(StandardCharsets.UTF_8));
        } finally {
            callers.shutdownNow();
            own.stop();
        }
    }

    /**
     * The mark of work whose transaction's outcome is unknown (made from its afterCompletion, the
     * ended transaction still on the thread): it cannot join that transaction, so it is made in one
     * of the store's own, and the work is marked executed: no retry runs it again.
     */
    @Test
    void theMarkOfWorkWhoseTransactionsOutcomeIsUnknownIsMadeInATransactionOfItsOwn() throws Exception {
        ResourceLocalTransactions transactions = new ResourceLocalTransactions(factory);
        RecordTransactions endedCaller = new RecordTransactions() { // the caller's transaction is over: no joining it
            @Override
            public <T> T inNewTransaction(java.util.function.Function<jakarta.persistence.EntityManager, T> work) {
                return transactions.inNewTransaction(work);
            }

            @Override
            public <T> T inCallerTransaction(java.util.function.Function<jakarta.persistence.EntityManager, T> work) {
                throw new IllegalStateException("the caller's transaction ended (STATUS_UNKNOWN): nothing can join it");
            }
        };
        SeparateRecordTransactions own = new SeparateRecordTransactions(endedCaller, () -> true,
                Executors.defaultThreadFactory(), 1);
        own.callerEnded = () -> true; // its outcome unknown
        JpaRecords store = new JpaRecords(own);
        try {
            ClaimResult.Acquired claim = (ClaimResult.Acquired) store.claim("unknown", "fp", LEASE);

            assertThat(store.markExecuted("unknown", claim.owner(), LEASE, Duration.ofHours(1))).isTrue();

            assertThat(store.find("unknown").orElseThrow().state()).isEqualTo(RecordState.EXECUTED);
        } finally {
            own.stop();
        }
    }

    /**
     * A call made after its transaction rolled back (an {@code AFTER_FAILURE} observer, the
     * rolled-back transaction still on the thread): its work ran outside that transaction, so its
     * completion is made in one of the store's own. A completion that would join a transaction a
     * timeout rolled back under the running method is still refused.
     */
    @Test
    void theCompletionOfACallMadeAfterItsTransactionRolledBackIsMadeInATransactionOfItsOwn() throws Exception {
        ResourceLocalTransactions transactions = new ResourceLocalTransactions(factory);
        RecordTransactions rolledBackCaller = new RecordTransactions() { // nothing can join it
            @Override
            public <T> T inNewTransaction(java.util.function.Function<jakarta.persistence.EntityManager, T> work) {
                return transactions.inNewTransaction(work);
            }

            @Override
            public <T> T inCallerTransaction(java.util.function.Function<jakarta.persistence.EntityManager, T> work) {
                throw new IllegalStateException("the caller's transaction rolled back: nothing can join it");
            }
        };
        SeparateRecordTransactions own = new SeparateRecordTransactions(rolledBackCaller, () -> true,
                Executors.defaultThreadFactory(), 1);
        own.callerEnded = () -> false;
        own.callerRolledBack = () -> true;
        JpaRecords store = new JpaRecords(own);
        StoredOutcome sent = StoredOutcome.of(200, Map.of(), "sent".getBytes(StandardCharsets.UTF_8));
        try {
            ClaimResult.Acquired underTimeout = (ClaimResult.Acquired) store.claim("timed-out", "fp", LEASE);
            assertThatThrownBy(() -> store.complete("timed-out", underTimeout.owner(), sent, Duration.ofHours(1)))
                    .isInstanceOf(IdempotencyStoreException.class);

            ClaimResult.Acquired observer = (ClaimResult.Acquired) store.claim("after-failure", "fp", LEASE);
            TransactionGuard.beginCallAfterItsTransaction();
            try {
                assertThat(store.complete("after-failure", observer.owner(), sent, Duration.ofHours(1))).isTrue();
            } finally {
                TransactionGuard.endCallAfterItsTransaction();
            }

            assertThat(store.find("after-failure").orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
            assertThat(store.find("timed-out").orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
        } finally {
            own.stop();
        }
    }

    /** Polled on a connection of its own, outside any transaction: a transaction sees one snapshot of the activity. */
    private static void awaitWaitingSessions(int expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int waiting = 0;
        try (Connection monitor = DriverManager.getConnection(URL, "postgres", "");
                Statement statement = monitor.createStatement()) {
            while (System.nanoTime() < deadline) {
                try (ResultSet rows = statement.executeQuery("SELECT count(*) FROM pg_stat_activity"
                        + " WHERE datname = current_database() AND wait_event_type = 'Lock'")) {
                    rows.next();
                    waiting = rows.getInt(1);
                }
                if (waiting >= expected) {
                    return;
                }
                Thread.sleep(50);
            }
        }
        throw new AssertionError("only " + waiting + " of " + expected + " claims are waiting for the row");
    }
}
