package dev.idempotency.state;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/** An order with a lifecycle, a version, and the count of charges its payment made. */
@Entity
@Table(name = "guarded_order")
public class GuardedOrder {

    @Id
    private long id;

    @Enumerated(EnumType.STRING)
    @Column(name = "state", length = 16)
    private OrderState state;

    @Version
    private long version;

    @Column(name = "charges", nullable = false)
    private int charges;

    protected GuardedOrder() {
    }

    GuardedOrder(long id, OrderState state) {
        this.id = id;
        this.state = state;
    }

    long id() {
        return id;
    }

    OrderState state() {
        return state;
    }

    long version() {
        return version;
    }

    /** What the guard exists to prevent: the state set on the instance, not through the guard. */
    void setStateDirectly(OrderState state) {
        this.state = state;
    }

    int charges() {
        return charges;
    }

    void charge() {
        charges++;
    }
}
