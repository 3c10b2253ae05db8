package dev.idempotency.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;

import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.Idempotent;
import dev.idempotency.exceptions.IdempotencyKeyReuseException;

/**
 * Two methods never share a key space by accident: the endpoint identity is the bean class, the
 * method name and the erased parameter types, and each bean inheriting an annotated method has
 * its own policy.
 */
class EndpointIdentityTest {

    public record OrderPlaced(String orderNo, int amount) {
    }

    public record OrderShipped(String orderNo, String carrier) {
    }

    /** The common CDI shape: one observer method name, overloaded by event type. */
    @ApplicationScoped
    public static class OrderObservers {
        final AtomicInteger placed = new AtomicInteger();
        final AtomicInteger shipped = new AtomicInteger();

        public int placed() {
            return placed.get();
        }

        public int shipped() {
            return shipped.get();
        }

        @Idempotent
        public void on(@Observes @IdempotencyKey("orderNo") OrderPlaced event) {
            placed.incrementAndGet();
        }

        @Idempotent
        public void on(@Observes @IdempotencyKey("orderNo") OrderShipped event) {
            shipped.incrementAndGet();
        }
    }

    @ApplicationScoped
    public static class Overloads {
        final AtomicInteger single = new AtomicInteger();
        final AtomicInteger counted = new AtomicInteger();

        public int single() {
            return single.get();
        }

        public int counted() {
            return counted.get();
        }

        @Idempotent
        public int handle(@IdempotencyKey String id) {
            return single.incrementAndGet();
        }

        @Idempotent
        public int handle(@IdempotencyKey String id, int attempt) {
            return counted.incrementAndGet();
        }
    }

    public abstract static class InheritedConsumer {
        final AtomicInteger executions = new AtomicInteger();

        public int executions() {
            return executions.get();
        }

        @Idempotent
        public int consume(@IdempotencyKey String id, int attempt) {
            return executions.incrementAndGet();
        }
    }

    @ApplicationScoped
    public static class FirstConsumer extends InheritedConsumer {
    }

    @ApplicationScoped
    public static class SecondConsumer extends InheritedConsumer {
    }

    private static final String FIRST_OVERRIDE = FirstConsumer.class.getName() + "/consume/Idempotent/fingerprintArguments";

    private WeldContainer container;

    @BeforeEach
    void start() {
        System.setProperty(FIRST_OVERRIDE, "false");
        container = TestContainers.weld(OrderObservers.class, Overloads.class, FirstConsumer.class, SecondConsumer.class)
                .initialize();
    }

    @AfterEach
    void stop() {
        container.close();
        System.clearProperty(FIRST_OVERRIDE);
    }

    @Test
    void overloadedObserversOfOneOrderEachRunOnceForItsOwnEvent() {
        Event<Object> events = container.getBeanManager().getEvent();
        OrderObservers observers = container.select(OrderObservers.class).get();

        events.select(OrderPlaced.class).fire(new OrderPlaced("o-1", 100));
        events.select(OrderShipped.class).fire(new OrderShipped("o-1", "dhl"));
        events.select(OrderPlaced.class).fire(new OrderPlaced("o-1", 100));
        events.select(OrderShipped.class).fire(new OrderShipped("o-1", "dhl"));

        assertThat(observers.placed()).as("placed: the redelivery skipped").isEqualTo(1);
        assertThat(observers.shipped()).as("shipped: its own key space, not a reuse of the placed event's").isEqualTo(1);
    }

    @Test
    void overloadedMethodsHaveTheirOwnKeys() {
        Overloads overloads = container.select(Overloads.class).get();

        assertThat(overloads.handle("k-1")).isEqualTo(1);
        assertThat(overloads.handle("k-1", 7)).as("the other overload runs").isEqualTo(1);
        assertThat(overloads.handle("k-1")).isEqualTo(1);
        assertThat(overloads.handle("k-1", 7)).isEqualTo(1);
        assertThat(overloads.single()).isEqualTo(1);
        assertThat(overloads.counted()).isEqualTo(1);
    }

    @Test
    void twoBeansInheritingOneMethodHaveTheirOwnKeysAndTheirOwnConfiguration() {
        FirstConsumer first = container.select(FirstConsumer.class).get();
        SecondConsumer second = container.select(SecondConsumer.class).get();

        assertThat(first.consume("k-1", 1)).isEqualTo(1);
        assertThat(second.consume("k-1", 1)).as("another bean: its own key space").isEqualTo(1);
        assertThat(second.executions()).isEqualTo(1);

        assertThat(first.consume("k-1", 2)).as("the first bean's override: arguments not fingerprinted").isEqualTo(1);
        assertThatThrownBy(() -> second.consume("k-1", 2)).as("the override is not the second bean's")
                .isInstanceOf(IdempotencyKeyReuseException.class);
        assertThat(first.executions()).isEqualTo(1);
        assertThat(second.executions()).isEqualTo(1);
    }
}
