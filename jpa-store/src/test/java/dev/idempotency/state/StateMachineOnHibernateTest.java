package dev.idempotency.state;

import static dev.idempotency.state.OrderState.CANCELLED;
import static dev.idempotency.state.OrderState.PAID;
import static dev.idempotency.state.OrderState.PENDING;
import static dev.idempotency.state.ResourceLocal.inTransaction;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;

import org.junit.jupiter.api.Test;

/**
 * The guard on Hibernate (WildFly's provider), where what it reads and what it writes can be
 * seen differently: on MariaDB, whose transactions read a snapshot (REPEATABLE READ, its
 * default), and for an entity kept in several tables (JOINED inheritance), whose bulk update
 * Hibernate splits into a read of the ids and an update by id.
 */
class StateMachineOnHibernateTest {

    static final StateMachine<OrderState> ORDERS = StateMachine.of(OrderState.class)
            .allow(PENDING, PAID, CANCELLED)
            .build();
    static final AtomicLong IDS = new AtomicLong(System.currentTimeMillis());

    @Test
    void onMariaDbADuplicateOfATransitionCommittedSinceTheTransactionBeganIsTheNoOp() throws Exception {
        String url = "jdbc:mariadb://127.0.0.1:3306/test";
        try (Connection connection = DriverManager.getConnection(url, "root", "");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS guarded_order (id BIGINT PRIMARY KEY, state VARCHAR(16),"
                    + " version BIGINT NOT NULL, charges INT NOT NULL)");
        }
        EntityManagerFactory factory = factory(url, "root");
        try {
            long id = IDS.incrementAndGet();
            inTransaction(factory, em -> {
                em.persist(new GuardedOrder(id, PENDING));
                return null;
            });
            EntityManager redelivery = factory.createEntityManager();
            try {
                redelivery.getTransaction().begin();
                GuardedOrder seen = redelivery.find(GuardedOrder.class, id); // its snapshot: PENDING

                Transition<OrderState> first = inTransaction(factory,
                        em -> ORDERS.transition(em, em.find(GuardedOrder.class, id), PAID));
                Transition<OrderState> duplicate = ORDERS.transition(redelivery, seen, PAID);
                redelivery.getTransaction().commit();

                assertThat(first.changed()).isTrue();
                assertThat(duplicate).as("the order was paid meanwhile: nothing to do, not a failure")
                        .isEqualTo(new Transition<>(PAID, PAID, false));
                assertThat(seen.state()).isEqualTo(PAID);
            } finally {
                if (redelivery.getTransaction().isActive()) {
                    redelivery.getTransaction().rollback();
                }
                redelivery.close();
            }
        } finally {
            factory.close();
        }
    }

    @Test
    void anEntityInSeveralTablesIsMovedOnceWhenOneTransactionHoldsItAsItsRootClass() throws Exception {
        // A lazy reference or getReference gives a proxy of the root class; the other transaction
        // has the concrete class: both must lock the same row.
        movedOnceByTwoTransactions((em, id) -> em.getReference(GuardedPayment.class, id));
    }

    /**
     * Hibernate reads a secondary table with an outer join, which PostgreSQL does not lock: it
     * locks "after the query", a projection never, and two concurrent transactions both moved the
     * entity (two charges). Such an entity is refused, naming where its state is.
     */
    @Test
    void anEntityWhoseStateIsInASecondaryTableIsRefused() throws Exception {
        String url = "jdbc:postgresql://127.0.0.1:5432/test";
        try (Connection connection = DriverManager.getConnection(url, "postgres", "");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS guarded_invoice (id BIGINT PRIMARY KEY, version BIGINT NOT NULL)");
            statement.execute("CREATE TABLE IF NOT EXISTS guarded_invoice_state (id BIGINT PRIMARY KEY"
                    + " REFERENCES guarded_invoice (id), state VARCHAR(16))");
        }
        EntityManagerFactory factory = factory(url, "postgres");
        try {
            long id = IDS.incrementAndGet();
            inTransaction(factory, em -> {
                em.persist(new GuardedInvoice(id, PENDING));
                return null;
            });

            assertThatThrownBy(() -> inTransaction(factory,
                    em -> ORDERS.transition(em, em.find(GuardedInvoice.class, id), PAID)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("IDEMP0702")
                    .hasMessageContaining("'state' in the entity's own table, beside its @Version (it is in the secondary"
                            + " table guarded_invoice_state");
        } finally {
            factory.close();
        }
    }

    @Test
    void anEntityInSeveralTablesIsMovedOnceByConcurrentTransactions() throws Exception {
        movedOnceByTwoTransactions((em, id) -> em.find(GuardedCardPayment.class, id));
    }

    /**
     * The first transaction moves a card payment (held as {@code firstHolds} says) and waits; the
     * second, with the concrete class, must wait for it and then find the move done.
     */
    private static void movedOnceByTwoTransactions(BiFunction<EntityManager, Long, Object> firstHolds) throws Exception {
        String url = "jdbc:postgresql://127.0.0.1:5432/test";
        paymentTables(url);
        EntityManagerFactory factory = factory(url, "postgres");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            long id = IDS.incrementAndGet();
            inTransaction(factory, em -> {
                em.persist(new GuardedCardPayment(id, PENDING, "4242"));
                return null;
            });
            EntityManager first = factory.createEntityManager();
            try {
                first.getTransaction().begin();
                assertThat(ORDERS.transition(first, firstHolds.apply(first, id), PAID).changed()).isTrue();

                Future<Transition<OrderState>> second = pool.submit(() -> inTransaction(factory,
                        em -> ORDERS.transition(em, em.find(GuardedCardPayment.class, id), PAID)));
                Thread.sleep(500); // the second is past its read, waiting for the first's row lock
                first.getTransaction().commit();

                assertThat(second.get(30, TimeUnit.SECONDS)).as("the payment was made by the first")
                        .isEqualTo(new Transition<>(PAID, PAID, false));
                assertThat(version(url, id)).as("moved once").isEqualTo(1);
            } finally {
                if (first.getTransaction().isActive()) {
                    first.getTransaction().rollback();
                }
                first.close();
            }
        } finally {
            pool.shutdownNow();
            factory.close();
        }
    }

    private static void paymentTables(String url) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url, "postgres", "");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS guarded_payment (id BIGINT PRIMARY KEY, DTYPE VARCHAR(31),"
                    + " state VARCHAR(16), version BIGINT NOT NULL)");
            statement.execute("CREATE TABLE IF NOT EXISTS guarded_card_payment (id BIGINT PRIMARY KEY"
                    + " REFERENCES guarded_payment (id), card VARCHAR(32))");
        }
    }

    private static EntityManagerFactory factory(String url, String user) {
        return Persistence.createEntityManagerFactory("state-guard-hibernate", Map.of(
                "jakarta.persistence.jdbc.url", url, "jakarta.persistence.jdbc.user", user,
                "jakarta.persistence.jdbc.password", ""));
    }

    private static long version(String url, long id) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url, "postgres", "");
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT version FROM guarded_payment WHERE id = " + id)) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
