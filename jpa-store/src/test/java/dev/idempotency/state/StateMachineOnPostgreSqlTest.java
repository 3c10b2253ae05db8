package dev.idempotency.state;

import static dev.idempotency.state.OrderState.CANCELLED;
import static dev.idempotency.state.OrderState.PAID;
import static dev.idempotency.state.OrderState.PENDING;
import static dev.idempotency.state.OrderState.REFUNDED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;


/**
 * The state-machine guard on the real PostgreSQL, with EclipseLink: duplicates write nothing,
 * illegal moves write nothing and say why, and concurrent transitions of one order give exactly
 * one change (and one charge), whatever mix of targets they ask for.
 */
class StateMachineOnPostgreSqlTest {

    static final String URL = "jdbc:postgresql://127.0.0.1:5432/test";
    static final StateMachine<OrderState> ORDERS = StateMachine.of(OrderState.class)
            .allow(PENDING, PAID, CANCELLED)
            .allow(PAID, REFUNDED)
            .build();
    static final AtomicLong IDS = new AtomicLong(System.currentTimeMillis());

    static EntityManagerFactory factory;

    @BeforeAll
    static void table() throws SQLException {
        try (Connection connection = DriverManager.getConnection(URL, "postgres", "");
                Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS guarded_order");
            // version nullable: a row a migration left without one
            statement.execute("CREATE TABLE guarded_order (id BIGINT PRIMARY KEY, state VARCHAR(16),"
                    + " version BIGINT, charges INT NOT NULL)");
        }
        factory = Persistence.createEntityManagerFactory("idempotency-test", Map.of(
                "jakarta.persistence.jdbc.url", URL, "jakarta.persistence.jdbc.user", "postgres",
                "jakarta.persistence.jdbc.password", "", "eclipselink.session-name", "state-machine-test"));
    }

    @AfterAll
    static void close() {
        factory.close();
    }

    static long newOrder(OrderState state) {
        long id = IDS.incrementAndGet();
        inTransaction(em -> {
            em.persist(new GuardedOrder(id, state));
            return null;
        });
        return id;
    }

    static <T> T inTransaction(Function<EntityManager, T> work) {
        return ResourceLocal.inTransaction(factory, work);
    }

    /** @return state, version and charges as the database holds them */
    static String row(long id) throws SQLException {
        try (Connection connection = DriverManager.getConnection(URL, "postgres", "");
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT state, version, charges FROM guarded_order WHERE id = " + id)) {
            rows.next();
            return rows.getString(1) + " v" + rows.getLong(2) + " charges=" + rows.getInt(3);
        }
    }

    @Test
    void aTransitionWritesOnceAndItsDuplicateWritesNothing() throws SQLException {
        long id = newOrder(PENDING);

        Transition<OrderState> paid = inTransaction(em -> {
            GuardedOrder order = em.find(GuardedOrder.class, id);
            Transition<OrderState> result = ORDERS.transition(em, order, PAID);
            assertThat(order.state()).as("the instance shows what is stored").isEqualTo(PAID);
            assertThat(order.version()).isEqualTo(2);
            return result;
        });
        assertThat((Object) paid).isEqualTo(new Transition<>(PENDING, PAID, true));
        assertThat(row(id)).isEqualTo("PAID v2 charges=0");

        Transition<OrderState> again = inTransaction(em -> ORDERS.transition(em, em.find(GuardedOrder.class, id), PAID));
        assertThat((Object) again).isEqualTo(new Transition<>(PAID, PAID, false));
        assertThat(row(id)).as("no write: the version did not move").isEqualTo("PAID v2 charges=0");

        Transition<OrderState> refunded = inTransaction(em -> ORDERS.transition(em, em.find(GuardedOrder.class, id), REFUNDED));
        assertThat((Object) refunded).isEqualTo(new Transition<>(PAID, REFUNDED, true));
        assertThat(row(id)).isEqualTo("REFUNDED v3 charges=0");
    }

    /**
     * A change the transaction made to the instance before its transition, not flushed yet (the
     * entity manager flushes at the commit only): the guard's refresh must not throw it away.
     */
    @Test
    void aChangeMadeBeforeTheTransitionIsKeptWhenNothingWasFlushed() throws SQLException {
        long id = newOrder(PENDING);

        inTransaction(em -> {
            em.setFlushMode(jakarta.persistence.FlushModeType.COMMIT);
            GuardedOrder order = em.find(GuardedOrder.class, id);
            order.charge();
            return ORDERS.transition(em, order, PAID);
        });

        assertThat(row(id)).isEqualTo("PAID v3 charges=1");
    }

    @Test
    void anIllegalTransitionWritesNothingAndSaysWhatIsAllowed() throws SQLException {
        long paid = newOrder(PAID);
        long cancelled = newOrder(CANCELLED);

        assertThatThrownBy(() -> inTransaction(em -> ORDERS.transition(em, em.find(GuardedOrder.class, paid), PENDING)))
                .isInstanceOf(IllegalTransitionException.class)
                .hasMessage("IDEMP0701: GuardedOrder " + paid + " cannot go from PAID to PENDING; allowed from PAID: [REFUNDED]");
        assertThatThrownBy(() -> inTransaction(em -> ORDERS.transition(em, em.find(GuardedOrder.class, cancelled), PAID)))
                .isInstanceOfSatisfying(IllegalTransitionException.class, e -> {
                    assertThat(e.from()).isEqualTo("CANCELLED");
                    assertThat(e.to()).isEqualTo("PAID");
                })
                .hasMessageEndingWith("allowed from CANCELLED: none (a final state)");
        assertThat(row(paid)).isEqualTo("PAID v1 charges=0");
        assertThat(row(cancelled)).isEqualTo("CANCELLED v1 charges=0");
    }

    /**
     * The state set on the instance and then the guard called: the flush before its locking read
     * wrote the move without asking the machine, and the read then found the target already there
     * (an illegal CANCELLED -> PAID committed; a legal PENDING -> PAID reported as no change, so
     * the charge never ran). Refused now, the move written back, so that a caller who catches the
     * refusal and commits keeps the state as it was.
     */
    @Test
    void aStateSetOnTheInstanceInsteadOfThroughTheGuardIsRefusedAndNeverWritten() throws SQLException {
        long cancelled = newOrder(CANCELLED);
        long pending = newOrder(PENDING);

        assertThatThrownBy(() -> inTransaction(em -> {
            GuardedOrder order = em.find(GuardedOrder.class, cancelled);
            order.setStateDirectly(PAID);
            return ORDERS.transition(em, order, PAID);
        })).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("IDEMP0706: GuardedOrder " + cancelled + "'s state was set to PAID on the instance"
                        + " (its row held CANCELLED), not through the guard");
        assertThat(row(cancelled)).isEqualTo("CANCELLED v1 charges=0");

        Transition<OrderState> caught = inTransaction(em -> {
            GuardedOrder order = em.find(GuardedOrder.class, pending);
            order.setStateDirectly(PAID);
            order.charge();
            try {
                return ORDERS.transition(em, order, PAID);
            } catch (IllegalArgumentException refused) {
                assertThat(order.state()).as("the instance shows what is stored again").isEqualTo(PENDING);
                return null;
            }
        });
        assertThat((Object) caught).as("refused, the refusal caught and the transaction committed").isNull();
        assertThat(row(pending)).as("the state as it was; the transaction's other change kept")
                .isEqualTo("PENDING v3 charges=1");

        Transition<OrderState> paid = inTransaction(em -> ORDERS.transition(em, em.find(GuardedOrder.class, pending), PAID));
        assertThat((Object) paid).as("moved through the guard: a change").isEqualTo(new Transition<>(PENDING, PAID, true));
    }

    /** An entity persisted in the transaction, its row not written yet: moved as any other. */
    @Test
    void anEntityPersistedInTheSameTransactionIsMoved() throws SQLException {
        long id = IDS.incrementAndGet();

        Transition<OrderState> paid = inTransaction(em -> {
            GuardedOrder order = new GuardedOrder(id, PENDING);
            em.persist(order);
            return ORDERS.transition(em, order, PAID);
        });

        assertThat((Object) paid).isEqualTo(new Transition<>(PENDING, PAID, true));
        assertThat(row(id)).isEqualTo("PAID v2 charges=0");
    }

    /**
     * A row whose state something else changed without moving its version (native SQL, a bulk
     * update), under an instance read before: not the instance's doing, so no refusal; the guard
     * decides on the row, as it always did.
     */
    @Test
    void aStateChangedInTheRowWithoutItsVersionIsNoMoveOfTheInstance() throws SQLException {
        long id = newOrder(PENDING);

        Transition<OrderState> again = inTransaction(em -> {
            GuardedOrder order = em.find(GuardedOrder.class, id);
            try (Connection connection = DriverManager.getConnection(URL, "postgres", "");
                    Statement statement = connection.createStatement()) {
                statement.execute("UPDATE guarded_order SET state = 'PAID' WHERE id = " + id);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            return ORDERS.transition(em, order, PAID);
        });

        assertThat((Object) again).isEqualTo(new Transition<>(PAID, PAID, false));
    }

    /** A row without a version (a migration's): no update can ever match it, so no retry helps. */
    @Test
    void aRowWithoutAVersionIsNamedNotTakenForContention() throws SQLException {
        long id = IDS.incrementAndGet();
        try (Connection connection = DriverManager.getConnection(URL, "postgres", "");
                Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO guarded_order (id, state, version, charges) VALUES (" + id + ", 'PENDING', NULL, 0)");
        }

        assertThatThrownBy(() -> inTransaction(em -> ORDERS.transition(em, em.find(GuardedOrder.class, id), PAID)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("IDEMP0702: GuardedOrder " + id + " has no version (its row's version is NULL):"
                        + " give every row a version, which guards every write");
        assertThat(row(id)).isEqualTo("PENDING v0 charges=0");
    }

    @Test
    void concurrentPaymentsOfOneOrderChargeItOnce() throws Exception {
        for (int round = 0; round < 5; round++) {
            long id = newOrder(PENDING);
            List<Transition<OrderState>> results = race(id, 16, i -> PAID);

            assertThat(results.stream().filter(Transition::changed).count()).as("round " + round).isEqualTo(1);
            assertThat(results).allSatisfy(result -> assertThat(result.current()).isEqualTo(PAID));
            assertThat(row(id)).isEqualTo("PAID v3 charges=1"); // v2: the transition, v3: the charge
        }
    }

    @Test
    void concurrentPaymentsAndCancellationsLeaveOneOfThem() throws Exception {
        for (int round = 0; round < 5; round++) {
            long id = newOrder(PENDING);
            List<Object> outcomes = new ArrayList<>();
            ExecutorService pool = Executors.newFixedThreadPool(16);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Object>> callers = new ArrayList<>();
                for (int i = 0; i < 16; i++) {
                    OrderState target = i % 2 == 0 ? PAID : CANCELLED;
                    callers.add(pool.submit(() -> {
                        start.await();
                        try {
                            return inTransaction(em -> ORDERS.transition(em, em.find(GuardedOrder.class, id), target));
                        } catch (IllegalTransitionException e) {
                            return e;
                        }
                    }));
                }
                start.countDown();
                for (Future<Object> caller : callers) {
                    outcomes.add(caller.get(60, TimeUnit.SECONDS));
                }
            } finally {
                pool.shutdownNow();
            }
            List<Transition<?>> changes = new ArrayList<>();
            for (Object outcome : outcomes) {
                if (outcome instanceof Transition<?> transition && transition.changed()) {
                    changes.add(transition);
                }
            }
            assertThat(changes).as("round " + round).hasSize(1);
            OrderState winner = (OrderState) changes.get(0).current();
            assertThat(row(id)).isEqualTo(winner + " v2 charges=0");
            // every loser either found its own target done (a no-op) or was refused the other one
            assertThat(outcomes).allSatisfy(outcome -> {
                if (outcome instanceof IllegalTransitionException refused) {
                    assertThat(refused.from()).isEqualTo(winner.name());
                } else {
                    assertThat(((Transition<?>) outcome).current()).isEqualTo(winner);
                }
            });
        }
    }

    @Test
    void anEntityWithoutWhatTheGuardNeedsIsNamedWithWhatItLacks() {
        // persisted, not flushed: the guard refuses it before any statement
        assertThatThrownBy(() -> inTransaction(em -> {
            UnguardedNote note = new UnguardedNote(1, "PENDING");
            em.persist(note);
            return ORDERS.transition(em, note, PAID);
        })).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("IDEMP0702: the state-machine guard cannot move entity UnguardedNote ("
                        + UnguardedNote.class.getName() + "); it needs a numeric @Version attribute, which guards every"
                        + " write, 'state' of type " + OrderState.class.getName() + " (it is a java.lang.String)");
        assertThatThrownBy(() -> inTransaction(em -> ORDERS.transition(em, new GuardedOrder(1, PENDING), PAID)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("IDEMP0704");
        // Not an entity at all: the provider's own uncoded message came first (em.contains refuses it).
        assertThatThrownBy(() -> inTransaction(em -> ORDERS.transition(em, "order 42", PAID)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("IDEMP0702: java.lang.String is not an entity of this persistence unit");
    }

    /** Every caller finds the order in a transaction of its own, moves it, and charges it if it changed it. */
    private static List<Transition<OrderState>> race(long id, int callers, Function<Integer, OrderState> target)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Transition<OrderState>>> futures = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                OrderState wanted = target.apply(i);
                futures.add(pool.submit(() -> {
                    start.await();
                    return inTransaction(em -> {
                        GuardedOrder order = em.find(GuardedOrder.class, id);
                        Transition<OrderState> result = ORDERS.transition(em, order, wanted);
                        if (result.changed()) {
                            order.charge();
                        }
                        return result;
                    });
                }));
            }
            start.countDown();
            List<Transition<OrderState>> results = new ArrayList<>();
            for (Future<Transition<OrderState>> future : futures) {
                results.add(future.get(60, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
