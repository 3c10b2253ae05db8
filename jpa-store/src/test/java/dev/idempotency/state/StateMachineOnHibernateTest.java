package dev.idempotency.state;

import static dev.idempotency.state.OrderState.CANCELLED;
import static dev.idempotency.state.OrderState.PAID;
import static dev.idempotency.state.OrderState.PENDING;
import static dev.idempotency.state.ResourceLocal.inTransaction;
import static org.assertj.core.api.Assertions.assertThat;

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
    void anEntityInSeveralTablesIsMovedOnceByConcurrentTransactions() throws Exception {
        String url = "jdbc:postgresql://127.0.0.1:5432/test";
        try (Connection connection = DriverManager.getConnection(url, "postgres", "");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS guarded_payment (id BIGINT PRIMARY KEY, DTYPE VARCHAR(31),"
                    + " state VARCHAR(16), version BIGINT NOT NULL)");
            statement.execute("CREATE TABLE IF NOT EXISTS guarded_card_payment (id BIGINT PRIMARY KEY"
                    + " REFERENCES guarded_payment (id), card VARCHAR(32))");
        }
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
                assertThat(ORDERS.transition(first, first.find(GuardedCardPayment.class, id), PAID).changed()).isTrue();

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
