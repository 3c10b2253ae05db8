package dev.idempotency.state;

/** The test order's lifecycle. */
public enum OrderState {
    PENDING, PAID, REFUNDED, CANCELLED
}
