package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import javax.sql.DataSource;

import jakarta.persistence.EntityManager;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.idempotency.jpa.testing.PlainDataSource;
import dev.idempotency.jpa.testing.PooledDataSource;
import dev.idempotency.jpa.testing.ResourceLocalTransactions;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;

/**
 * A first claim and a completion on a thread without a transaction, where the store knows its
 * datasource: each one statement committed on its own ({@code INSERT ... ON CONFLICT DO NOTHING},
 * the owner-checked {@code UPDATE}), with no transaction of the store's (in a Jakarta EE server:
 * no JTA transaction, entity manager or unit of work around one statement); everything else (a
 * duplicate, a takeover, a failed insert) as before, in transactions of the store's own. Counted
 * on the real PostgreSQL.
 */
class AutoCommitStatementsTest extends PostgreSqlRecords {

    private static final Duration LEASE = Duration.ofSeconds(60);
    private static final Duration RETENTION = Duration.ofHours(1);

    /** Transactions of the store's own, counted. */
    private static final class Counted implements RecordTransactions {
        final AtomicInteger transactions = new AtomicInteger();
        final ResourceLocalTransactions work;

        Counted(DataSource autoCommit) {
            work = new ResourceLocalTransactions(factory, autoCommit);
        }

        @Override
        public <T> T inNewTransaction(Function<EntityManager, T> body) {
            transactions.incrementAndGet();
            return work.inNewTransaction(body);
        }

        @Override
        public <T> T inCallerTransaction(Function<EntityManager, T> body) {
            transactions.incrementAndGet();
            return work.inCallerTransaction(body);
        }

        @Override
        public Optional<DataSource> autoCommitDataSource() {
            return work.autoCommitDataSource();
        }
    }

    /** PostgreSQL, its connections counted; each failing while {@link #broken}. */
    private static final class CountedDataSource extends PlainDataSource {
        final AtomicInteger connections = new AtomicInteger();
        final PooledDataSource database;
        volatile boolean broken;

        CountedDataSource(String database, boolean broken) {
            this.database = new PooledDataSource("jdbc:postgresql://127.0.0.1:5432/" + database, "postgres");
            this.broken = broken;
        }

        CountedDataSource() {
            this("test", false);
        }

        /** While set, every update runs (and commits) and then throws, as a reply lost on its way back. */
        volatile boolean answersLost;

        @Override
        public Connection getConnection() throws SQLException {
            connections.incrementAndGet();
            if (broken) {
                throw new SQLException("the database did not answer (a test's)");
            }
            Connection connection = database.getConnection();
            return answersLost ? losingUpdateAnswers(connection) : connection;
        }

        private static Connection losingUpdateAnswers(Connection connection) {
            return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                    (proxy, method, args) -> {
                        Object result = invoke(connection, method, args);
                        if (!(result instanceof PreparedStatement statement)) {
                            return result;
                        }
                        return Proxy.newProxyInstance(PreparedStatement.class.getClassLoader(),
                                new Class<?>[] {PreparedStatement.class}, (p, m, a) -> {
                                    Object answer = invoke(statement, m, a);
                                    if (m.getName().equals("executeUpdate")) {
                                        throw new SQLException("the connection broke after the statement ran (a test's)");
                                    }
                                    return answer;
                                });
                    });
        }

        private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }

    /** The store on counted transactions and a counted datasource (none when {@code dataSource} is null). */
    private static final class Fixture {
        final CountedDataSource dataSource;
        final Counted counted;
        final JpaRecords store;

        Fixture(CountedDataSource dataSource) {
            this.dataSource = dataSource;
            this.counted = new Counted(dataSource);
            this.store = new JpaRecords(counted);
        }

        /** @return this, its counts set to zero (after a warm-up or a set-up) */
        Fixture counting() {
            counted.transactions.set(0);
            if (dataSource != null) {
                dataSource.connections.set(0);
            }
            return this;
        }

        String claimed(String key) {
            return ((ClaimResult.Acquired) store.claim(key, "fp-1", LEASE, RETENTION)).owner();
        }
    }

    private static String key(String name) {
        return "auto-commit-" + name + "-" + System.nanoTime();
    }

    @Test
    void aFirstClaimIsOneStatementCommittedOnItsOwnAndItsRowIsTheClaims() throws SQLException {
        Fixture fixture = new Fixture(new CountedDataSource());
        fixture.claimed(key("warm-up")); // the clock and the product are read once, in transactions
        fixture.counting();
        String key = key("first");

        ClaimResult claim = fixture.store.claim(key, "fp-1", LEASE, RETENTION);

        assertThat(claim).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(fixture.counted.transactions).as("transactions of the store's own").hasValue(0);
        assertThat(fixture.dataSource.connections).as("auto-committed statements").hasValue(1);
        try (Connection connection = fixture.dataSource.database.getConnection();
                PreparedStatement row = connection.prepareStatement("SELECT state, fingerprint, owner_token, version,"
                        + " lease_end > created_at, expires_at > lease_end, created_at = updated_at"
                        + " FROM idempotency_record WHERE record_key = ?")) {
            row.setString(1, key);
            try (ResultSet found = row.executeQuery()) {
                assertThat(found.next()).as("the row, committed").isTrue();
                assertThat(found.getString(1)).isEqualTo(JpaRecords.IN_PROGRESS);
                assertThat(found.getString(2)).isEqualTo("fp-1");
                assertThat(found.getString(3)).isEqualTo(((ClaimResult.Acquired) claim).owner());
                assertThat(found.getInt(4)).isEqualTo(1);
                assertThat(found.getBoolean(5)).as("lease end after creation").isTrue();
                assertThat(found.getBoolean(6)).as("retention past the lease").isTrue();
                assertThat(found.getBoolean(7)).as("updated when created").isTrue();
            }
        }
    }

    @Test
    void aCompletionIsOneStatementCommittedOnItsOwnAndOnlyItsOwnerCompletes() {
        Fixture fixture = new Fixture(new CountedDataSource());
        String key = key("complete");
        String owner = fixture.claimed(key);
        fixture.counting();
        byte[] body = "{\"id\":42}".getBytes(StandardCharsets.UTF_8);
        StoredOutcome outcome = StoredOutcome.of(201, Map.of("Location", List.of("/payments/42")), body);

        boolean byAnother = fixture.store.complete(key, "not-the-owner", outcome, RETENTION);
        boolean byOwner = fixture.store.complete(key, owner, outcome, RETENTION);
        boolean again = fixture.store.complete(key, owner, outcome, RETENTION);

        assertThat(byAnother).isFalse();
        assertThat(byOwner).isTrue();
        assertThat(again).as("completed once").isFalse();
        assertThat(fixture.counted.transactions).as("transactions of the store's own").hasValue(0);
        assertThat(fixture.dataSource.connections).as("auto-committed statements").hasValue(3);
        assertThat(fixture.store.find(key)).hasValueSatisfying(record -> {
            assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
            assertThat(record.outcome().status()).isEqualTo(201);
            assertThat(record.outcome().headers()).containsEntry("Location", List.of("/payments/42"));
            assertThat(record.outcome().body()).isEqualTo(body);
        });
    }

    @Test
    void aDuplicateMeetsTheRowOnceAndReadsItInOneMoreStatement() {
        Fixture fixture = new Fixture(new CountedDataSource());
        String key = key("duplicate");
        fixture.claimed(key);
        fixture.counting();

        ClaimResult again = fixture.store.claim(key, "fp-1", LEASE, RETENTION);
        ClaimResult reused = fixture.store.claim(key, "fp-2", LEASE, RETENTION);

        assertThat(again).isInstanceOfSatisfying(ClaimResult.Existing.class, existing -> {
            assertThat(existing.record().state()).isEqualTo(RecordState.IN_PROGRESS);
            assertThat(existing.record().fingerprint()).isEqualTo("fp-1");
        });
        assertThat(reused).isInstanceOfSatisfying(ClaimResult.Existing.class,
                existing -> assertThat(existing.record().fingerprint()).isEqualTo("fp-1"));
        assertThat(fixture.dataSource.connections).as("an insert that met the row and a read, each").hasValue(4);
        assertThat(fixture.counted.transactions).as("transactions of the store's own").hasValue(0);
    }

    @Test
    void aReplayIsAnsweredByTwoStatementsWithTheStoredBytes() {
        Fixture fixture = new Fixture(new CountedDataSource());
        String key = key("replay");
        byte[] body = "{\"id\":42}".getBytes(StandardCharsets.UTF_8);
        assertThat(fixture.store.complete(key, fixture.claimed(key),
                StoredOutcome.of(201, Map.of("Location", List.of("/payments/42")), body), RETENTION)).isTrue();
        fixture.counting();

        ClaimResult replay = fixture.store.claim(key, "fp-1", LEASE, RETENTION);

        assertThat(replay).isInstanceOfSatisfying(ClaimResult.Existing.class, existing -> {
            assertThat(existing.record().state()).isEqualTo(RecordState.COMPLETED);
            assertThat(existing.record().outcome().status()).isEqualTo(201);
            assertThat(existing.record().outcome().headers()).containsEntry("Location", List.of("/payments/42"));
            assertThat(existing.record().outcome().body()).isEqualTo(body);
        });
        assertThat(fixture.dataSource.connections).as("the insert that met the row, the read").hasValue(2);
        assertThat(fixture.counted.transactions).as("transactions of the store's own").hasValue(0);
    }

    @Test
    void aLookUpIsOneStatement() {
        Fixture fixture = new Fixture(new CountedDataSource());
        String key = key("look-up");
        assertThat(fixture.store.complete(key, fixture.claimed(key), StoredOutcome.withoutBody(204, Map.of()), RETENTION))
                .isTrue();
        fixture.counting();

        assertThat(fixture.store.find(key)).hasValueSatisfying(record -> {
            assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
            assertThat(record.outcome().status()).isEqualTo(204);
            assertThat(record.outcome().bodyStored()).isFalse();
        });
        assertThat(fixture.store.find(key("absent"))).isEmpty();
        assertThat(fixture.dataSource.connections).as("one read each").hasValue(2);
        assertThat(fixture.counted.transactions).as("transactions of the store's own").hasValue(0);
    }

    @Test
    void anAbandonedClaimIsTakenOverInATransactionOfTheStoresOwn() throws InterruptedException {
        Fixture fixture = new Fixture(new CountedDataSource());
        String key = key("abandoned");
        assertThat(fixture.store.claim(key, "fp-1", Duration.ofMillis(300), RETENTION)).isInstanceOf(ClaimResult.Acquired.class);
        Thread.sleep(600);
        fixture.counting();

        ClaimResult other = fixture.store.claim(key, "fp-2", LEASE, RETENTION);
        ClaimResult same = fixture.store.claim(key, "fp-1", LEASE, RETENTION);

        assertThat(other).as("another request: refused as a reused key, without a takeover")
                .isInstanceOfSatisfying(ClaimResult.Existing.class,
                        existing -> assertThat(existing.record().fingerprint()).isEqualTo("fp-1"));
        assertThat(same).as("the same request after the lease: a takeover")
                .isInstanceOfSatisfying(ClaimResult.Acquired.class, taken -> assertThat(taken.takeover()).isTrue());
        assertThat(fixture.counted.transactions).as("the takeover's transaction").hasValue(1);
    }

    @Test
    void aFailedInsertLeavesTheClaimToATransactionOfTheStoresOwn() {
        Fixture fixture = new Fixture(new CountedDataSource());
        fixture.claimed(key("warm-up"));
        fixture.dataSource.broken = true;
        fixture.counting();
        String key = key("broken");

        fixture.claimed(key);

        assertThat(fixture.dataSource.connections).as("the insert tried").hasValue(1);
        assertThat(fixture.counted.transactions).as("then the claim in a transaction").hasValue(1);
        assertThat(fixture.store.find(key))
                .hasValueSatisfying(record -> assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS));
    }

    @Test
    void anInsertThatCommittedWhoseAnswerWasLostIsStillTheCallersClaim() {
        Fixture fixture = new Fixture(new CountedDataSource());
        fixture.claimed(key("warm-up"));
        fixture.dataSource.answersLost = true;
        String key = key("insert-answer-lost");

        ClaimResult claim = fixture.store.claim(key, "fp-1", LEASE, RETENTION);

        assertThat(claim).as("its own row, not somebody else's claim in progress (409)")
                .isInstanceOf(ClaimResult.Acquired.class);
        fixture.dataSource.answersLost = false;
        assertThat(fixture.store.complete(key, ((ClaimResult.Acquired) claim).owner(),
                StoredOutcome.of(201, Map.of(), new byte[] {1}), RETENTION)).as("and it owns it").isTrue();
    }

    /**
     * A completion whose statement failed is made again in a transaction of the store's own: where
     * nothing reached the database, and where the statement committed with its answer lost (the
     * row is then completed by this owner already, and this call's completion is reported as such).
     */
    @ParameterizedTest(name = "answer lost: {0}")
    @ValueSource(booleans = {false, true})
    void aCompletionWhoseStatementFailedIsMadeInATransactionOfTheStoresOwn(boolean committedWithAnswerLost) {
        Fixture fixture = new Fixture(new CountedDataSource());
        String key = key("completion-" + committedWithAnswerLost);
        String owner = fixture.claimed(key);
        fixture.dataSource.broken = !committedWithAnswerLost;
        fixture.dataSource.answersLost = committedWithAnswerLost;
        fixture.counting();

        boolean completed = fixture.store.complete(key, owner, StoredOutcome.of(200, Map.of(), new byte[] {7}), RETENTION);

        assertThat(completed).as("this call completed the record: true, as the SPI says").isTrue();
        assertThat(fixture.counted.transactions).hasValue(1);
        assertThat(fixture.store.find(key)).hasValueSatisfying(record -> {
            assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
            assertThat(record.outcome().body()).containsExactly(7);
        });
        assertThat(fixture.store.complete(key, "another owner", StoredOutcome.of(200, Map.of(), new byte[] {8}),
                RETENTION)).as("another owner completes nothing").isFalse();
    }

    @Test
    void aDataSourceOfAnotherDatabaseIsNeverWrittenTo() {
        Fixture fixture = new Fixture(new CountedDataSource("postgres", false));
        String key = key("elsewhere");

        String owner = fixture.claimed(key);
        boolean completed = fixture.store.complete(key, owner, StoredOutcome.of(200, Map.of(), new byte[] {7}), RETENTION);
        fixture.claimed(key("elsewhere-too"));

        assertThat(completed).isTrue();
        assertThat(fixture.dataSource.connections).as("asked once which database it reaches, then left alone").hasValue(1);
        assertThat(fixture.store.find(key))
                .hasValueSatisfying(record -> assertThat(record.state()).isEqualTo(RecordState.COMPLETED));
    }

    @Test
    void theDataSourceIsOfferedOnlyOnAThreadKnownToHaveNoTransaction() {
        CountedDataSource dataSource = new CountedDataSource();
        RecordTransactions work = new ResourceLocalTransactions(factory, dataSource);
        SeparateRecordTransactions inACallersTransaction = new SeparateRecordTransactions(work, () -> true,
                Executors.defaultThreadFactory(), 2);
        SeparateRecordTransactions withoutOne = new SeparateRecordTransactions(work, () -> false,
                Executors.defaultThreadFactory(), 2);
        // as on a server, but where the transactions cannot be asked (no JNDI here): not known to be none
        SeparateRecordTransactions cannotTell = new SeparateRecordTransactions();
        cannotTell.transactions = new JtaRecordTransactions() {
            @Override
            public Optional<DataSource> autoCommitDataSource() {
                return Optional.of(dataSource);
            }
        };

        assertThat(inACallersTransaction.autoCommitDataSource()).isEmpty();
        assertThat(withoutOne.autoCommitDataSource()).containsSame(dataSource);
        assertThat(cannotTell.autoCommitDataSource()).isEmpty();
    }

    @Test
    void withoutADataSourceAFirstClaimIsATransactionOfTheStoresOwn() {
        Fixture fixture = new Fixture(null);
        fixture.claimed(key("warm-up"));
        fixture.counting();

        fixture.claimed(key("transaction"));

        assertThat(fixture.counted.transactions).hasValue(1);
    }
}
