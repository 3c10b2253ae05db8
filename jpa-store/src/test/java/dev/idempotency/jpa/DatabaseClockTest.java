package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.sql.SQLSyntaxErrorException;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import jakarta.persistence.Query;

import org.junit.jupiter.api.Test;

import dev.idempotency.spi.IdempotencyStoreException;

/**
 * How the clock expression is chosen, on a scripted database: an expression the database does
 * not know is skipped, a database that does not answer fails the call and leaves the choice open.
 */
class DatabaseClockTest {

    private static final LocalDateTime NOW = LocalDateTime.of(2026, 3, 29, 1, 30);

    /** A database that runs the statements it knows, refuses the others, or is down. */
    private static final class ScriptedDatabase implements RecordTransactions {
        final List<String> known;
        final List<String> asked = new ArrayList<>();
        /** what an expression answers, where not a timestamp of {@link #NOW} */
        final Map<String, Object> answers = new HashMap<>();
        boolean down;
        /** Runs before each answer, given how many queries were asked so far (a pause, say). */
        java.util.function.IntConsumer beforeAnswer = asked -> { };

        ScriptedDatabase(List<String> known) {
            this.known = known;
        }

        @Override
        public <T> T inNewTransaction(Function<EntityManager, T> work) {
            return work.apply(entityManager());
        }

        @Override
        public <T> T inCallerTransaction(Function<EntityManager, T> work) {
            return work.apply(entityManager());
        }

        private EntityManager entityManager() {
            return (EntityManager) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {EntityManager.class},
                    (proxy, method, args) -> switch (method.getName()) {
                        case "createNativeQuery" -> query((String) args[0]);
                        case "unwrap" -> throw new PersistenceException("this provider keeps its connection");
                        default -> throw new UnsupportedOperationException(method.getName());
                    });
        }

        private Query query(String sql) {
            return (Query) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Query.class},
                    (proxy, method, args) -> {
                        asked.add(sql);
                        if (down) {
                            throw new PersistenceException(new SQLException("Connection refused", "08001"));
                        }
                        if (!known.contains(sql)) {
                            throw new PersistenceException(new SQLSyntaxErrorException("syntax error", "42601"));
                        }
                        beforeAnswer.accept(asked.size());
                        return answers.getOrDefault(sql, Timestamp.valueOf(NOW));
                    });
        }
    }

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    /**
     * The first reading of the clock runs in a transaction of the store's own, which needs a
     * connection of its own. When the pool has none to give (every connection held by a caller),
     * the other callers must not queue behind that reading while they hold theirs, out of reach
     * of the bound on the store's own transactions: found by {@code OwnTransactionOverloadIT},
     * where every caller waited 30 s behind the first one's monitor.
     */
    @Test
    void aCallerDoesNotWaitForAnotherCallersFirstReadingOfTheClock() throws Exception {
        ScriptedDatabase postgres = new ScriptedDatabase(List.of(DatabaseClock.UTC_NOW.get(0)));
        CountDownLatch firstInside = new CountDownLatch(1);
        CountDownLatch connectionForTheFirst = new CountDownLatch(1);
        AtomicBoolean first = new AtomicBoolean(true);
        RecordTransactions poolWithoutAConnectionForTheFirst = new RecordTransactions() {
            @Override
            public <T> T inNewTransaction(Function<EntityManager, T> work) {
                if (first.compareAndSet(true, false)) {
                    firstInside.countDown();
                    try {
                        connectionForTheFirst.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                synchronized (postgres) {
                    return postgres.inNewTransaction(work);
                }
            }

            @Override
            public <T> T inCallerTransaction(Function<EntityManager, T> work) {
                synchronized (postgres) {
                    return postgres.inCallerTransaction(work);
                }
            }
        };
        DatabaseClock clock = new DatabaseClock(nanos::get);
        Thread firstCaller = new Thread(() -> clock.resolve(poolWithoutAConnectionForTheFirst));
        firstCaller.start();
        try {
            assertThat(firstInside.await(5, TimeUnit.SECONDS)).isTrue();

            CompletableFuture<LocalDateTime> second = CompletableFuture.supplyAsync(() -> {
                clock.resolve(poolWithoutAConnectionForTheFirst);
                return clock.now();
            });

            assertThat(second.get(3, TimeUnit.SECONDS)).as("the second caller read the clock itself").isEqualTo(NOW);
        } finally {
            connectionForTheFirst.countDown();
            firstCaller.join(10_000);
        }
    }

    @Test
    void anExpressionTheDatabaseDoesNotKnowIsSkippedAndTheChoiceKept() {
        ScriptedDatabase mariaDb = new ScriptedDatabase(List.of(DatabaseClock.UTC_NOW.get(1)));
        DatabaseClock clock = new DatabaseClock(nanos::get);

        clock.resolve(mariaDb);
        assertThat(mariaDb.asked).contains(DatabaseClock.UTC_NOW.get(0)).last().isEqualTo(DatabaseClock.UTC_NOW.get(1));
        mariaDb.asked.clear();
        nanos.addAndGet(TimeUnit.MINUTES.toNanos(2));
        clock.resolve(mariaDb);

        assertThat(mariaDb.asked).as("a stale reading is read again, with the chosen expression only (once to take"
                + " the connection, once timed)").containsExactly(DatabaseClock.UTC_NOW.get(1), DatabaseClock.UTC_NOW.get(1));
    }

    @Test
    void betweenReadingsTheDatabaseTimeIsCarriedForwardOnTheMonotonicClockWithoutAQuery() {
        ScriptedDatabase postgreSql = new ScriptedDatabase(List.of(DatabaseClock.UTC_NOW.get(0)));
        DatabaseClock clock = new DatabaseClock(nanos::get);
        clock.resolve(postgreSql);
        postgreSql.asked.clear();

        nanos.addAndGet(TimeUnit.SECONDS.toNanos(2));
        clock.resolve(postgreSql);

        assertThat(clock.now()).isEqualTo(NOW.plusSeconds(2));
        assertThat(postgreSql.asked).as("no query while the reading is fresh").isEmpty();
    }

    @Test
    void afterASuspendThatStoppedTheMonotonicClockTheDatabaseIsReadAgain() {
        AtomicLong wall = new AtomicLong(1_700_000_000_000L);
        ScriptedDatabase postgreSql = new ScriptedDatabase(List.of(DatabaseClock.UTC_NOW.get(0)));
        DatabaseClock clock = new DatabaseClock(nanos::get, wall::get);
        clock.resolve(postgreSql);
        postgreSql.asked.clear();

        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
        wall.addAndGet(TimeUnit.MINUTES.toMillis(5) + 100); // suspended for five minutes: nanoTime stood still
        clock.resolve(postgreSql);

        assertThat(postgreSql.asked).as("the carried time fell behind: read again").isNotEmpty();

        postgreSql.asked.clear();
        nanos.addAndGet(TimeUnit.SECONDS.toNanos(2));
        wall.addAndGet(2000);
        clock.resolve(postgreSql);
        assertThat(postgreSql.asked).as("clocks in step again: no query").isEmpty();
    }

    /**
     * After a suspend, one call took its time from the reading before it (it lost the race to read
     * the database again), and another call's reading came between that and its ends: measured
     * against the fresh reading, its time showed no drift, and its ends were written early by the
     * whole suspend (a takeover's lease, a completion's retention).
     */
    @Test
    void aTimeTakenFromTheReadingBeforeASuspendIsNotWrittenFromOnceAFresherReadingIsIn() {
        AtomicLong wall = new AtomicLong(1_700_000_000_000L);
        ScriptedDatabase postgreSql = new ScriptedDatabase(List.of(DatabaseClock.UTC_NOW.get(0)));
        DatabaseClock clock = new DatabaseClock(nanos::get, wall::get);
        clock.resolve(postgreSql);

        wall.addAndGet(TimeUnit.MINUTES.toMillis(10)); // suspended for ten minutes: nanoTime stood still
        LocalDateTime taken = clock.now(); // this call goes on with the reading from before the suspend
        postgreSql.answers.put(DatabaseClock.UTC_NOW.get(0), Timestamp.valueOf(NOW.plusMinutes(10)));
        clock.resolve(postgreSql); // another call reads the database again

        assertThat(clock.notBehind(taken)).as("never before the fresher reading's time")
                .isAfterOrEqualTo(NOW.plusMinutes(10));
    }

    /**
     * A pause inside the timed round trip (a stop-the-world collection, a scheduler that left the
     * thread waiting) moved the estimate by half the pause: the node's time of the database ran
     * ahead by a second, for up to a minute, and with it every takeover and purge. A reading whose
     * round trip took long is made again.
     */
    @Test
    void aReadingWhoseRoundTripWasPausedIsMadeAgain() {
        ScriptedDatabase postgreSql = new ScriptedDatabase(List.of(DatabaseClock.UTC_NOW.get(0)));
        DatabaseClock clock = new DatabaseClock(nanos::get);
        postgreSql.beforeAnswer = asked -> {
            if (asked == 3) { // the first timed query of the reading (after the choice's probe and the untimed one)
                nanos.addAndGet(TimeUnit.SECONDS.toNanos(2)); // paused before the database read its clock
            }
        };

        clock.resolve(postgreSql);

        assertThat(clock.now()).as("the database's time, not a second ahead of it").isEqualTo(NOW);
    }

    /**
     * H2's expression is the transaction's start, the same on every query of one reading: read
     * again after a paused round trip, it kept the old time against a later node time, and the
     * reading came out behind by the pause (ends written early). Such an expression is read once.
     */
    @Test
    void anExpressionOfTheTransactionsStartIsNotReadAgainAfterAPause() {
        ScriptedDatabase h2 = new ScriptedDatabase(List.of(DatabaseClock.UTC_NOW.get(4)));
        DatabaseClock clock = new DatabaseClock(nanos::get);
        long start = nanos.get();
        h2.beforeAnswer = asked -> {
            if (asked == 7) { // the first timed query (after four refused probes, H2's, the untimed one)
                nanos.addAndGet(TimeUnit.SECONDS.toNanos(2));
            }
        };

        clock.resolve(h2);

        long elapsed = nanos.get() - start;
        assertThat(clock.now()).as("not behind by the pause").isAfterOrEqualTo(NOW.plusNanos(elapsed / 2 - 1_000_000));
    }

    @Test
    void aDatabaseThatIsDownFailsTheCallAndLeavesTheChoiceForTheNext() {
        ScriptedDatabase postgreSql = new ScriptedDatabase(List.of(DatabaseClock.UTC_NOW.get(0)));
        postgreSql.down = true;
        DatabaseClock clock = new DatabaseClock(nanos::get);

        assertThatThrownBy(() -> clock.resolve(postgreSql)).isInstanceOf(IdempotencyStoreException.class);
        assertThat(postgreSql.asked).as("one attempt, not every expression").hasSize(1);

        postgreSql.down = false;
        clock.resolve(postgreSql);
        assertThat(clock.now()).isEqualTo(NOW);
        assertThat(postgreSql.asked).last().isEqualTo(DatabaseClock.UTC_NOW.get(0));
    }

    @Test
    void aReadingThatCannotBeRefreshedIsKept() {
        ScriptedDatabase postgreSql = new ScriptedDatabase(List.of(DatabaseClock.UTC_NOW.get(0)));
        DatabaseClock clock = new DatabaseClock(nanos::get);
        clock.resolve(postgreSql);

        postgreSql.down = true;
        nanos.addAndGet(TimeUnit.MINUTES.toNanos(2));
        clock.resolve(postgreSql);

        assertThat(clock.now()).isEqualTo(NOW.plusMinutes(2));
    }

    /**
     * After a suspend whose reading could not be refreshed (the database did not answer; another
     * thread was reading it), the time carried on the monotonic clock is behind by the suspend:
     * judged by it, a lease or a record lives a little longer, which is safe. The ends a call writes
     * (a claim's lease and retention, a completion's expiry) come from the wall clock then: written
     * from the time behind, a lease would end early by the suspend, and another node would take
     * over a claim whose owner still runs.
     */
    @Test
    void afterASuspendTheEndsWrittenAreNotBehindEvenWhenTheReadingCouldNotBeRefreshed() {
        AtomicLong wall = new AtomicLong(1_700_000_000_000L);
        ScriptedDatabase postgreSql = new ScriptedDatabase(List.of(DatabaseClock.UTC_NOW.get(0)));
        DatabaseClock clock = new DatabaseClock(nanos::get, wall::get);
        clock.resolve(postgreSql);

        postgreSql.down = true;
        nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
        wall.addAndGet(TimeUnit.MINUTES.toMillis(10) + 1_000); // suspended for ten minutes
        clock.resolve(postgreSql);

        assertThat(clock.now()).as("judged: the time carried on the monotonic clock").isEqualTo(NOW.plusSeconds(1));
        assertThat(clock.notBehind(clock.now())).as("written: the wall clock moved further").isEqualTo(NOW.plusMinutes(10).plusSeconds(1));

        wall.addAndGet(-TimeUnit.MINUTES.toMillis(30)); // a wall clock stepped back: the monotonic one is ahead
        assertThat(clock.notBehind(clock.now())).isEqualTo(NOW.plusSeconds(1));
    }

    /**
     * Clocks in step (the wall clock a few milliseconds apart, its resolution and adjustments):
     * the ends written are the carried time exactly, so that a lease written is as long as asked
     * (the support look-up shows it: {@code SupportLookupIT} saw 2.00003 s for a 2-second lease, its
     * claim time and lease end read from the monotonic clock a few microseconds apart).
     */
    @Test
    void withTheClocksInStepTheEndsWrittenAreTheCarriedTime() {
        AtomicLong wall = new AtomicLong(1_700_000_000_000L);
        ScriptedDatabase postgreSql = new ScriptedDatabase(List.of(DatabaseClock.UTC_NOW.get(0)));
        DatabaseClock clock = new DatabaseClock(nanos::get, wall::get);
        clock.resolve(postgreSql);

        nanos.addAndGet(TimeUnit.SECONDS.toNanos(3));
        wall.addAndGet(3_007);

        assertThat(clock.notBehind(clock.now())).isEqualTo(NOW.plusSeconds(3));
    }

    /**
     * The expressions answer text: a database that knows one but writes its times otherwise (a
     * PostgreSQL-compatible product with another date style, say) is passed over, not taken for a
     * database that does not answer, which would fail every call.
     */
    @Test
    void anExpressionWhoseTextCannotBeReadIsPassedOver() {
        ScriptedDatabase compatible = new ScriptedDatabase(List.of(DatabaseClock.UTC_NOW.get(0), DatabaseClock.UTC_NOW.get(1)));
        compatible.answers.put(DatabaseClock.UTC_NOW.get(0), "Sun Mar 29 01:30:00 2026");
        compatible.answers.put(DatabaseClock.UTC_NOW.get(1), "2026-03-29 01:30:00 ");
        DatabaseClock clock = new DatabaseClock(nanos::get);

        clock.resolve(compatible);

        assertThat(compatible.asked).last().isEqualTo(DatabaseClock.UTC_NOW.get(1));
        assertThat(clock.now()).isEqualTo(NOW);
    }

    @Test
    void aDatabaseKnowingNoUtcExpressionFallsBackToItsSessionTime() {
        ScriptedDatabase other = new ScriptedDatabase(List.of(DatabaseClock.SESSION_LOCAL_NOW));
        DatabaseClock clock = new DatabaseClock(nanos::get);

        clock.resolve(other);

        assertThat(other.asked).last().isEqualTo(DatabaseClock.SESSION_LOCAL_NOW);
        assertThat(clock.now()).isEqualTo(NOW);
    }

    /**
     * The clock is read twice in one transaction (once untimed, once timed): PostgreSQL's
     * {@code CURRENT_TIMESTAMP} is the transaction's start, so the timed reading was as old as the
     * first round trip and whatever came between (a pause of the node), and a node whose reading lags
     * writes its lease ends that much too early. The expression must be the time of the statement.
     */
    @Test
    void postgreSqlsClockExpressionIsTheStatementsTimeNotTheTransactionsStart() throws Exception {
        try (java.sql.Connection connection = java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test",
                "postgres", "")) {
            connection.setAutoCommit(false);
            LocalDateTime first = readClock(connection);
            Thread.sleep(300);
            LocalDateTime second = readClock(connection);
            connection.rollback();

            assertThat(java.time.Duration.between(first, second)).as("the later statement reads a later time")
                    .isGreaterThanOrEqualTo(java.time.Duration.ofMillis(250));
        }
    }

    private static LocalDateTime readClock(java.sql.Connection connection) throws java.sql.SQLException {
        try (java.sql.Statement statement = connection.createStatement();
                java.sql.ResultSet result = statement.executeQuery(DatabaseClock.UTC_NOW.get(0))) {
            result.next();
            return LocalDateTime.parse(result.getString(1).replace(' ', 'T'));
        }
    }
}
