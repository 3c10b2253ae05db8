package dev.idempotency.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.Idempotent;
import dev.idempotency.InProgressDuplicates;
import dev.idempotency.exceptions.IdempotencyConflictException;

/**
 * docs/configuration.md, "Duplicates in flight": a non-HTTP call inside a JTA transaction does not
 * wait for the call it repeats (that call may be its own transaction's, or wait for locks this
 * transaction holds); it gets {@link IdempotencyConflictException} at once. Inside any transaction:
 * an active one, and one marked rollback-only (it still holds its locks until it ends).
 */
class WaitingInATransactionTest {

    @ApplicationScoped
    public static class Orders {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger executions = new AtomicInteger();

        @Idempotent(inProgress = InProgressDuplicates.WAIT, maxWait = "PT5S", lease = "PT10S")
        public String place(@IdempotencyKey String id) throws InterruptedException {
            executions.incrementAndGet();
            entered.countDown();
            release.await(10, TimeUnit.SECONDS);
            return "placed " + id;
        }

        // methods, not fields: the test holds a client proxy
        boolean awaitEntered() throws InterruptedException {
            return entered.await(5, TimeUnit.SECONDS);
        }

        void release() {
            release.countDown();
        }

        int executions() {
            return executions.get();
        }
    }

    private final FakeJta jta = FakeJta.INSTANCE;
    private WeldContainer container;
    private Orders orders;

    @BeforeEach
    void start() {
        FakeJta.install();
        container = TestContainers.weld(Orders.class).initialize();
        orders = container.select(Orders.class).get();
    }

    @AfterEach
    void stop() {
        orders.release();
        jta.forget();
        container.close();
        FakeJta.uninstall();
    }

    @Test
    void aDuplicateInAnActiveTransactionIsRefusedAtOnce() throws Exception {
        assertRefusedAtOnce(false);
    }

    /**
     * A transaction marked rollback-only is still on the thread, holding its locks: its call waited
     * up to maxWait, and got the first call's result when that one ended meanwhile.
     */
    @Test
    void aDuplicateInATransactionMarkedRollbackOnlyIsRefusedAtOnce() throws Exception {
        assertRefusedAtOnce(true);
    }

    private void assertRefusedAtOnce(boolean rollbackOnly) throws Exception {
        CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> {
            try {
                return orders.place("o-1");
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(orders.awaitEntered()).as("the first call runs").isTrue();

        CompletableFuture<Object> duplicate = CompletableFuture.supplyAsync(() -> {
            jta.begin();
            try {
                if (rollbackOnly) {
                    jta.setRollbackOnly();
                }
                return orders.place("o-1");
            } catch (RuntimeException | InterruptedException e) {
                return e;
            } finally {
                jta.rollback();
            }
        });
        // Well within maxWait (5 s): a duplicate that waited is still waiting now.
        Object answer;
        try {
            answer = duplicate.get(2, TimeUnit.SECONDS);
        } finally {
            orders.release(); // a waiting duplicate would now get the first call's result
        }
        assertThat(answer).as("the duplicate's answer").isInstanceOf(IdempotencyConflictException.class);
        assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo("placed o-1");
        assertThat(orders.executions()).as("executions").isEqualTo(1);
    }
}
