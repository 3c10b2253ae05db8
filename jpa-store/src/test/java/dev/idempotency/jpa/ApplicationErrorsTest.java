package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import jakarta.persistence.PersistenceException;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.idempotency.jpa.testing.ResourceLocalTransactions;
import dev.idempotency.jpa.testing.ShippedDdl;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;

/**
 * The application's own persistence errors, met when the store's statement joins the caller's
 * transaction on the application's entity manager ({@code @IdempotencyPersistence}), come out as
 * they are, not as a store outage (which the library answers with 503 and Retry-After, so a client
 * would retry for ever): the caller's pending rows are flushed before the store's statement. On
 * the real PostgreSQL, with EclipseLink and with Hibernate.
 */
class ApplicationErrorsTest {

    static final String URL = "jdbc:postgresql://127.0.0.1:5432/test";
    static final Duration LONG = Duration.ofMinutes(10);
    static final AtomicLong IDS = new AtomicLong(System.currentTimeMillis());
    static final StoredOutcome PAID = StoredOutcome.of(201, Map.of(), "paid".getBytes());
    static final Map<String, EntityManagerFactory> FACTORIES = new HashMap<>();

    @BeforeAll
    static void database() throws Exception {
        try (Connection connection = DriverManager.getConnection(URL, "postgres", "");
                Statement statement = connection.createStatement()) {
            ShippedDdl.recreate(statement, "postgresql.sql");
            statement.execute("DROP TABLE IF EXISTS application_order");
            statement.execute("CREATE TABLE application_order (id BIGINT PRIMARY KEY,"
                    + " reference VARCHAR(64) NOT NULL UNIQUE)");
        }
        for (String unit : new String[] {"idempotency-test", "idempotency-test-hibernate"}) {
            FACTORIES.put(unit, Persistence.createEntityManagerFactory(unit, Map.of(
                    "jakarta.persistence.jdbc.url", URL, "jakarta.persistence.jdbc.user", "postgres",
                    "jakarta.persistence.jdbc.password", "", "eclipselink.session-name", "application-errors")));
        }
    }

    @AfterAll
    static void close() {
        FACTORIES.values().forEach(EntityManagerFactory::close);
    }

    /**
     * The store's transactions as on a server whose application produces its entity manager: work
     * in the caller's transaction runs on the caller's entity manager, in its open transaction.
     */
    static final class CallerTransaction implements RecordTransactions {

        final ResourceLocalTransactions own;
        final EntityManager caller;

        CallerTransaction(EntityManagerFactory factory) {
            own = new ResourceLocalTransactions(factory);
            caller = factory.createEntityManager();
        }

        @Override
        public <T> T inNewTransaction(Function<EntityManager, T> work) {
            return own.inNewTransaction(work);
        }

        @Override
        public <T> T inCallerTransaction(Function<EntityManager, T> work) {
            return caller.getTransaction().isActive() ? work.apply(caller) : own.inNewTransaction(work);
        }

        void rollback() {
            if (caller.getTransaction().isActive()) {
                caller.getTransaction().rollback();
            }
            caller.close();
        }
    }

    private static String acquire(JpaRecords records, String key) {
        return ((ClaimResult.Acquired) records.claim(key, "fp", LONG, LONG)).owner();
    }

    /**
     * The application persists a valid order in its transaction, then the store's statement joins
     * it; the transaction then commits, or rolls back.
     *
     * @return what the store answered
     */
    private static <T> T afterAnOrder(CallerTransaction transactions, long id, boolean commit, Supplier<T> statement) {
        try {
            transactions.caller.getTransaction().begin();
            transactions.caller.persist(new ApplicationOrder(id, "ref-" + id));
            T answer = statement.get();
            if (commit) {
                transactions.caller.getTransaction().commit();
            }
            return answer;
        } finally {
            transactions.rollback();
        }
    }

    private static Object order(EntityManagerFactory factory, long id) {
        return new ResourceLocalTransactions(factory).inNewTransaction(em -> em.find(ApplicationOrder.class, id));
    }

    private static String takenReference(EntityManagerFactory factory) {
        String reference = "ref-" + IDS.incrementAndGet();
        new ResourceLocalTransactions(factory).inNewTransaction(em -> {
            em.persist(new ApplicationOrder(IDS.incrementAndGet(), reference));
            return null;
        });
        return reference;
    }

    private static String sqlState(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql) {
                return sql.getSQLState();
            }
        }
        return null;
    }

    @ParameterizedTest
    @ValueSource(strings = {"idempotency-test", "idempotency-test-hibernate"})
    void aUniqueViolationOfTheApplicationsRowsComesOutOfMarkExecutedAsItsOwn(String unit) {
        EntityManagerFactory factory = FACTORIES.get(unit);
        CallerTransaction transactions = new CallerTransaction(factory);
        JpaRecords records = new JpaRecords(transactions);
        String key = "app-error-mark-" + System.nanoTime();
        String owner = acquire(records, key);
        String reference = takenReference(factory);
        Throwable thrown;
        try {
            transactions.caller.getTransaction().begin();
            transactions.caller.persist(new ApplicationOrder(IDS.incrementAndGet(), reference)); // a duplicate
            thrown = catchThrowable(() -> records.markExecuted(key, owner, LONG, LONG));
        } finally {
            transactions.rollback();
        }

        assertThat(thrown).as("the application's error, not a store outage").isInstanceOf(PersistenceException.class)
                .isNotInstanceOf(IdempotencyStoreException.class);
        assertThat(sqlState(thrown)).as("a unique violation").isEqualTo("23505");
        assertThat(records.find(key)).as("the mark rolled back with the business rows").get()
                .extracting(r -> r.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(records.release(key, owner)).as("the library releases the claim after the rollback").isTrue();
        assertThat(records.claim(key, "fp", LONG, LONG)).as("and a retry runs").isInstanceOf(ClaimResult.Acquired.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"idempotency-test", "idempotency-test-hibernate"})
    void aUniqueViolationOfTheApplicationsRowsComesOutOfCompleteAsItsOwn(String unit) {
        EntityManagerFactory factory = FACTORIES.get(unit);
        CallerTransaction transactions = new CallerTransaction(factory);
        JpaRecords records = new JpaRecords(transactions);
        String key = "app-error-complete-" + System.nanoTime();
        String owner = acquire(records, key);
        String reference = takenReference(factory);
        Throwable thrown;
        try {
            transactions.caller.getTransaction().begin();
            transactions.caller.persist(new ApplicationOrder(IDS.incrementAndGet(), reference));
            thrown = catchThrowable(() -> records.complete(key, owner, StoredOutcome.of(201, Map.of(), new byte[0]), LONG));
        } finally {
            transactions.rollback();
        }

        assertThat(thrown).isInstanceOf(PersistenceException.class).isNotInstanceOf(IdempotencyStoreException.class);
        assertThat(records.find(key)).get().extracting(r -> r.state()).isEqualTo(RecordState.IN_PROGRESS);
    }

    @ParameterizedTest
    @ValueSource(strings = {"idempotency-test", "idempotency-test-hibernate"})
    void aFailureOfTheStoresOwnStatementIsStillTheStores(String unit) {
        EntityManagerFactory factory = FACTORIES.get(unit);
        CallerTransaction transactions = new CallerTransaction(factory);
        JpaRecords records = new JpaRecords(transactions);
        String key = "store-error-mark-" + System.nanoTime();
        String owner = acquire(records, key);
        Throwable thrown;
        try {
            transactions.caller.getTransaction().begin();
            // the application's rows flush fine; then the store's UPDATE is refused
            transactions.caller.persist(new ApplicationOrder(IDS.incrementAndGet(), "ref-" + IDS.incrementAndGet()));
            transactions.caller.flush();
            transactions.caller.createNativeQuery("SET TRANSACTION READ ONLY").executeUpdate();
            thrown = catchThrowable(() -> records.markExecuted(key, owner, LONG, LONG));
        } finally {
            transactions.rollback();
        }

        assertThat(thrown).isInstanceOf(IdempotencyStoreException.class);
        assertThat(records.find(key)).get().extracting(r -> r.state()).isEqualTo(RecordState.IN_PROGRESS);
    }

    @ParameterizedTest
    @ValueSource(strings = {"idempotency-test", "idempotency-test-hibernate"})
    void theApplicationsValidRowsAndTheMarkCommitTogether(String unit) {
        EntityManagerFactory factory = FACTORIES.get(unit);
        CallerTransaction transactions = new CallerTransaction(factory);
        JpaRecords records = new JpaRecords(transactions);
        String key = "app-ok-mark-" + System.nanoTime();
        String owner = acquire(records, key);
        long id = IDS.incrementAndGet();
        boolean marked = afterAnOrder(transactions, id, true, () -> records.markExecuted(key, owner, LONG, LONG));

        assertThat(marked).isTrue();
        assertThat(records.find(key)).get().extracting(r -> r.state()).isEqualTo(RecordState.EXECUTED);
        assertThat(order(factory, id)).as("the business row committed with the mark").isNotNull();
    }

    /**
     * What the library does with the value of a non-HTTP method that returned inside a
     * transaction: the store's completion joins it and rolls back with it, leaving the claim in
     * progress, which the library then gives back; a retry runs.
     */
    @ParameterizedTest
    @ValueSource(strings = {"idempotency-test", "idempotency-test-hibernate"})
    void aCompletionInTheCallersTransactionRollsBackWithItAndTheKeyIsGivenBack(String unit) {
        EntityManagerFactory factory = FACTORIES.get(unit);
        CallerTransaction transactions = new CallerTransaction(factory);
        JpaRecords records = new JpaRecords(transactions);
        String key = "rolled-back-complete-" + System.nanoTime();
        String owner = acquire(records, key);
        long id = IDS.incrementAndGet();
        boolean completed = afterAnOrder(transactions, id, false, () -> records.complete(key, owner, PAID, LONG));

        assertThat(completed).isTrue();
        assertThat(records.find(key)).as("the completion rolled back with the business rows").get()
                .extracting(r -> r.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(records.release(key, owner)).as("the library gives the claim back after the rollback").isTrue();
        assertThat(records.claim(key, "fp", LONG, LONG)).as("and a retry runs").isInstanceOf(ClaimResult.Acquired.class);
        assertThat(order(factory, id)).as("no business row").isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"idempotency-test", "idempotency-test-hibernate"})
    void aCompletionInTheCallersTransactionCommitsWithTheBusinessRows(String unit) {
        EntityManagerFactory factory = FACTORIES.get(unit);
        CallerTransaction transactions = new CallerTransaction(factory);
        JpaRecords records = new JpaRecords(transactions);
        String key = "committed-complete-" + System.nanoTime();
        String owner = acquire(records, key);
        long id = IDS.incrementAndGet();
        assertThat(afterAnOrder(transactions, id, true, () -> records.complete(key, owner, PAID, LONG))).isTrue();

        assertThat(records.find(key)).get().satisfies(record -> {
            assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
            assertThat(record.outcome().body()).asString().isEqualTo("paid");
        });
        assertThat(order(factory, id)).as("the business row committed with the record").isNotNull();
    }
}
