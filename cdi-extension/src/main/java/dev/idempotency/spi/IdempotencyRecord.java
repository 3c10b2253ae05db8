package dev.idempotency.spi;

import java.util.Objects;

/**
 * A live record as a store reports it.
 *
 * @param key the scoped, hashed key
 * @param state see {@link RecordState}
 * @param fingerprint the fingerprint of the request that claimed the key
 * @param outcome the stored outcome; {@code null} unless {@link RecordState#COMPLETED}
 */
public record IdempotencyRecord(String key, RecordState state, String fingerprint, StoredOutcome outcome) {

    /**
     * Checks that a completed record has an outcome and the others have none.
     *
     * @param key the scoped, hashed key, not null
     * @param state the record's state, not null
     * @param fingerprint the claimer's fingerprint, not null
     * @param outcome the stored outcome: present for {@link RecordState#COMPLETED} only
     * @throws IllegalArgumentException when the outcome does not match the state
     */
    public IdempotencyRecord {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(fingerprint, "fingerprint");
        if ((state == RecordState.COMPLETED) != (outcome != null)) {
            throw new IllegalArgumentException("a " + state + " record " + (outcome == null ? "needs" : "has no") + " outcome");
        }
    }

    /**
     * @param key the scoped, hashed key
     * @param fingerprint the claimer's fingerprint
     * @return an in-progress record
     */
    public static IdempotencyRecord inProgress(String key, String fingerprint) {
        return new IdempotencyRecord(key, RecordState.IN_PROGRESS, fingerprint, null);
    }

    /**
     * @param key the scoped, hashed key
     * @param fingerprint the claimer's fingerprint
     * @return a record whose work committed and whose outcome is being stored
     */
    public static IdempotencyRecord executed(String key, String fingerprint) {
        return new IdempotencyRecord(key, RecordState.EXECUTED, fingerprint, null);
    }

    /**
     * @param key the scoped, hashed key
     * @param fingerprint the claimer's fingerprint
     * @return a record whose work committed and whose outcome never arrived
     */
    public static IdempotencyRecord outcomeLost(String key, String fingerprint) {
        return new IdempotencyRecord(key, RecordState.OUTCOME_LOST, fingerprint, null);
    }

    /**
     * @param key the scoped, hashed key
     * @param fingerprint the claimer's fingerprint
     * @param outcome the stored outcome
     * @return a completed record
     */
    public static IdempotencyRecord completed(String key, String fingerprint, StoredOutcome outcome) {
        return new IdempotencyRecord(key, RecordState.COMPLETED, fingerprint, outcome);
    }
}
