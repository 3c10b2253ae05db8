package dev.idempotency.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StateMachineTest {

    enum Order { PENDING, PAID, REFUNDED, CANCELLED }

    static final StateMachine<Order> ORDERS = StateMachine.of(Order.class)
            .allow(Order.PENDING, Order.PAID, Order.CANCELLED)
            .allow(Order.PAID, Order.REFUNDED)
            .build();

    @Test
    void onlyDeclaredMovesAreAllowed() {
        assertThat(ORDERS.allows(Order.PENDING, Order.PAID)).isTrue();
        assertThat(ORDERS.allows(Order.PAID, Order.REFUNDED)).isTrue();
        assertThat(ORDERS.allows(Order.PAID, Order.PENDING)).as("never back").isFalse();
        assertThat(ORDERS.allows(Order.CANCELLED, Order.PAID)).as("a cancelled order is never paid").isFalse();
        assertThat(ORDERS.allows(Order.PAID, Order.PAID)).as("staying is the no-op, not a move").isFalse();
        assertThat(ORDERS.targets(Order.PENDING)).containsExactly(Order.PAID, Order.CANCELLED);
        assertThat(ORDERS.targets(Order.REFUNDED)).isEmpty();
        assertThat(ORDERS.attribute()).isEqualTo("state");
    }

    @Test
    void theMachineIsFrozenOnceBuilt() {
        assertThatThrownBy(() -> ORDERS.targets(Order.PENDING).add(Order.REFUNDED))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aMoveToTheSameStateIsRefusedWhenDeclared() {
        assertThatThrownBy(() -> StateMachine.of(Order.class).allow(Order.PAID, Order.PAID))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("IDEMP0702: Order.PAID -> PAID is not a transition: moving to the state held is always a no-op");
        assertThatThrownBy(() -> StateMachine.of(Order.class).attribute(" "))
                .hasMessageStartingWith("IDEMP0702");
    }

    @Test
    void theStateAttributeCanBeNamed() {
        assertThat(StateMachine.of(Order.class).attribute("status").build().attribute()).isEqualTo("status");
    }
}
