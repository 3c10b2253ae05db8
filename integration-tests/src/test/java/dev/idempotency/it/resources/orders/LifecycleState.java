package dev.idempotency.it.resources.orders;

/** An order's lifecycle in the state-machine test: PENDING -> PAID -> REFUNDED; PENDING -> CANCELLED. */
public enum LifecycleState {
    PENDING, PAID, REFUNDED, CANCELLED
}
