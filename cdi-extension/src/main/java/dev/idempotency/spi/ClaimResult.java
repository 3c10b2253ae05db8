package dev.idempotency.spi;

import java.util.Objects;

/** What {@link IdempotencyStore#claim} answers: the claim was acquired, or someone holds it. */
public sealed interface ClaimResult {

    /**
     * The caller owns the key now and must complete or release it.
     *
     * @param owner the owner token to pass to complete and release
     * @param takeover whether an expired claim of a crashed owner was taken over
     */
    record Acquired(String owner, boolean takeover) implements ClaimResult {
        /**
         * Checks the token.
         *
         * @param owner the owner token, not null
         * @param takeover whether an expired claim was taken over
         */
        public Acquired {
            Objects.requireNonNull(owner, "owner");
        }
    }

    /**
     * The key is held: in progress or completed.
     *
     * @param record the live record
     */
    record Existing(IdempotencyRecord record) implements ClaimResult {
        /**
         * Checks the record.
         *
         * @param record the live record, not null
         */
        public Existing {
            Objects.requireNonNull(record, "record");
        }
    }
}
