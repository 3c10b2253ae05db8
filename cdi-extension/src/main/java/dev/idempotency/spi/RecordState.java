package dev.idempotency.spi;

/** The state of a stored record. */
public enum RecordState {
    /** Claimed; the owner is executing. Expires with the lease. */
    IN_PROGRESS,
    /** Executed; the outcome is stored and replayed. Expires with the retention (ttl). */
    COMPLETED
}
