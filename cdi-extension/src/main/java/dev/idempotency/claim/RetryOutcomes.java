package dev.idempotency.claim;

import dev.idempotency.IdempotencyOutcome;
import dev.idempotency.spi.IdempotencyRecord;

/** What a retry gets when its claim found a record: one decision for HTTP and non-HTTP callers. */
public final class RetryOutcomes {

    private RetryOutcomes() {
    }

    /**
     * @param existing the record the claim found
     * @param fingerprint the retry's fingerprint
     * @return {@code MISMATCH} for another request, else by the record's state: {@code CONFLICT}
     *     while it runs, {@code OUTCOME_LOST} when it committed without a replayable outcome,
     *     {@code REPLAYED} otherwise
     */
    public static IdempotencyOutcome of(IdempotencyRecord existing, String fingerprint) {
        if (!existing.fingerprint().equals(fingerprint)) {
            return IdempotencyOutcome.MISMATCH;
        }
        return switch (existing.state()) {
            case IN_PROGRESS, EXECUTED -> IdempotencyOutcome.CONFLICT;
            case OUTCOME_LOST -> IdempotencyOutcome.OUTCOME_LOST;
            case COMPLETED -> existing.outcome().bodyStored() ? IdempotencyOutcome.REPLAYED
                    : IdempotencyOutcome.OUTCOME_LOST;
        };
    }
}
