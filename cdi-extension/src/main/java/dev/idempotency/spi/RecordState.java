package dev.idempotency.spi;

/** The state of a stored record, as a store reports it. */
public enum RecordState {
    /** Claimed; the owner is executing. Expires with the lease (then another caller may claim it). */
    IN_PROGRESS,
    /**
     * The work committed (recorded inside its transaction, {@link IdempotencyStore#markExecuted});
     * the owner is storing the outcome. Never claimed again: retries wait.
     */
    EXECUTED,
    /**
     * The work committed, but the outcome never arrived within the lease (the node stopped
     * between the commit and storing the response). Never claimed again, kept for the retention:
     * the work must not run twice, and its answer is gone.
     */
    OUTCOME_LOST,
    /** Executed; the outcome is stored and replayed. Expires with the retention (ttl). */
    COMPLETED
}
