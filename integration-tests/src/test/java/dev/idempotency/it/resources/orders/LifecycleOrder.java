package dev.idempotency.it.resources.orders;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/** An order with a lifecycle, a version, and how many times its payment charged. */
@Entity
@Table(name = "it_lifecycle_order")
public class LifecycleOrder {

    @Id
    private long id;

    @Enumerated(EnumType.STRING)
    @Column(name = "state", length = 16)
    private LifecycleState state;

    @Version
    private long version;

    @Column(name = "charges", nullable = false)
    private int charges;

    protected LifecycleOrder() {
    }

    LifecycleOrder(long id) {
        this.id = id;
        this.state = LifecycleState.PENDING;
    }

    LifecycleState state() {
        return state;
    }

    long version() {
        return version;
    }

    int charges() {
        return charges;
    }

    void charge() {
        charges++;
    }
}
