package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import javax.sql.DataSource;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PersistenceException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.idempotency.jpa.testing.PooledDataSource;
import dev.idempotency.jpa.testing.ResourceLocalTransactions;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.RecordState;

/**
 * A claim made in a transaction of the store's own (every database but PostgreSQL on a thread
 * without a transaction: MariaDB always) whose commit went through while its answer was lost on
 * the way back (a connection reset after the database committed). The claim's next round met
 * its own row, in progress under an owner token it no longer knew, and answered its own request
 * {@code 409} until the lease ran out; the request is now given its claim.
 */
class LostCommitAnswerTest {

    private static final Duration LEASE = Duration.ofMinutes(1);
    private static final Duration SHORT = Duration.ofMillis(500);

    /** The store's own transactions; while {@link #loseNextAnswer} is set, the next one commits and then fails. */
    private static final class LosingAnswers implements RecordTransactions {
        final ResourceLocalTransactions work;
        final AtomicBoolean loseNextAnswer = new AtomicBoolean();

        LosingAnswers(EntityManagerFactory factory) {
            this(factory, null);
        }

        /** @param autoCommit the same database as a datasource: a first insert committed on its own (PostgreSQL) */
        LosingAnswers(EntityManagerFactory factory, DataSource autoCommit) {
            work = new ResourceLocalTransactions(factory, autoCommit);
        }

        @Override
        public Optional<DataSource> autoCommitDataSource() {
            return work.autoCommitDataSource();
        }

        @Override
        public <T> T inNewTransaction(Function<EntityManager, T> body) {
            T result = work.inNewTransaction(body);
            if (loseNextAnswer.compareAndSet(true, false)) {
                throw new PersistenceException("I/O error: the connection was reset after the commit");
            }
            return result;
        }

        @Override
        public <T> T inCallerTransaction(Function<EntityManager, T> body) {
            return inNewTransaction(body);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "jdbc:postgresql://127.0.0.1:5432/test, postgres, postgresql.sql",
        "jdbc:mariadb://127.0.0.1:3306/test, root, mariadb.sql"})
    void aClaimWhoseCommitAnswerWasLostIsStillTheCallersClaim(String url, String user, String ddl) throws Exception {
        Databases.recreate(url, user, ddl);
        // a session of its own per database: EclipseLink hands a factory the live session of its name
        EntityManagerFactory factory = Databases.open(url, user, "lost-answer-" + ddl);
        try {
            LosingAnswers transactions = new LosingAnswers(factory);
            JpaRecords records = new JpaRecords(transactions);
            assertThat(records.claim("warm-up", "fp", LEASE)).isInstanceOf(ClaimResult.Acquired.class);
            String key = "answer-lost-" + System.nanoTime();

            transactions.loseNextAnswer.set(true);
            ClaimResult claim = records.claim(key, "fp", LEASE);

            assertThat(claim).as("the request's own claim, committed with its answer lost")
                    .isInstanceOf(ClaimResult.Acquired.class);
            String owner = ((ClaimResult.Acquired) claim).owner();
            assertThat(records.complete(key, owner, PurgeTest.OUTCOME, LEASE)).as("its owner completes it").isTrue();
            assertThat(records.find(key)).get().extracting(record -> record.state()).isEqualTo(RecordState.COMPLETED);

            // the same for a row written over: a key reused once its record's retention ended (the
            // row not purged yet), and an abandoned claim taken over by its retry
            String reused = "answer-lost-reused-" + System.nanoTime();
            String old = ((ClaimResult.Acquired) records.claim(reused, "fp", SHORT, SHORT)).owner();
            assertThat(records.complete(reused, old, PurgeTest.OUTCOME, SHORT)).isTrue();
            String abandoned = "answer-lost-abandoned-" + System.nanoTime();
            assertThat(records.claim(abandoned, "fp", SHORT, LEASE)).isInstanceOf(ClaimResult.Acquired.class);
            Thread.sleep(SHORT.toMillis() + 300);

            transactions.loseNextAnswer.set(true);
            assertThat(records.claim(reused, "fp-new", LEASE)).as("a key reused after its retention, answer lost")
                    .isInstanceOfSatisfying(ClaimResult.Acquired.class, acquired -> assertThat(acquired.takeover()).isFalse());
            transactions.loseNextAnswer.set(true);
            assertThat(records.claim(abandoned, "fp", LEASE)).as("an abandoned claim taken over, answer lost")
                    .isInstanceOfSatisfying(ClaimResult.Acquired.class, acquired -> assertThat(acquired.takeover()).isTrue());
        } finally {
            factory.close();
        }
    }

    /**
     * On a request's path on PostgreSQL the first insert is committed on its own; one that meets a
     * row (an abandoned claim, a record past its retention) goes straight to a takeover in a
     * transaction of the store's own. That takeover committed with its answer lost failed the
     * claim (503), and its retry got 409 behind it until the lease ended.
     */
    @Test
    void aTakeoverAfterAnInsertOnTheDataSourceWhoseCommitAnswerWasLostIsStillTheCallersClaim() throws Exception {
        String url = "jdbc:postgresql://127.0.0.1:5432/test";
        Databases.recreate(url, "postgres", "postgresql.sql");
        EntityManagerFactory factory = Databases.open(url, "postgres", "lost-answer-datasource");
        try (PooledDataSource dataSource = new PooledDataSource(url, "postgres")) {
            LosingAnswers transactions = new LosingAnswers(factory, dataSource);
            JpaRecords records = new JpaRecords(transactions);
            String abandoned = "answer-lost-ds-abandoned-" + System.nanoTime();
            assertThat(records.claim(abandoned, "fp", SHORT, LEASE)).isInstanceOf(ClaimResult.Acquired.class);
            String reused = "answer-lost-ds-reused-" + System.nanoTime();
            String old = ((ClaimResult.Acquired) records.claim(reused, "fp", SHORT, SHORT)).owner();
            assertThat(records.complete(reused, old, PurgeTest.OUTCOME, SHORT)).isTrue();
            Thread.sleep(SHORT.toMillis() + 300);

            transactions.loseNextAnswer.set(true);
            assertThat(records.claim(abandoned, "fp", LEASE)).as("an abandoned claim taken over, answer lost")
                    .isInstanceOfSatisfying(ClaimResult.Acquired.class, acquired -> assertThat(acquired.takeover()).isTrue());
            transactions.loseNextAnswer.set(true);
            assertThat(records.claim(reused, "fp-new", LEASE)).as("a key reused after its retention, answer lost")
                    .isInstanceOfSatisfying(ClaimResult.Acquired.class, acquired -> assertThat(acquired.takeover()).isFalse());
        } finally {
            factory.close();
        }
    }
}
