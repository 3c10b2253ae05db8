package dev.idempotency.spi;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A live record with the times its store keeps, as the support look-up shows it
 * ({@link IdempotencyStore#inspect}). Each time is the store's own clock (the database's, the
 * Redis or Infinispan server's; for the in-memory store this node's), and absent where the store
 * does not keep it. Never read on the request path.
 *
 * @param record the record
 * @param claimedAt when the current claim was made (after a takeover: the takeover), or {@code null}
 * @param leaseEnds in progress: when a retry of the same request may take the claim over; executed:
 *     when the outcome counts as lost; {@code null} for the other states or when not kept
 * @param expiresAt when the record ends and the key is free again, or {@code null}
 */
public record RecordDetails(IdempotencyRecord record, Instant claimedAt, Instant leaseEnds, Instant expiresAt) {

    /**
     * @param record the record, not null
     * @param claimedAt when claimed, or {@code null}
     * @param leaseEnds when the lease ends, or {@code null}
     * @param expiresAt when the record expires, or {@code null}
     */
    public RecordDetails {
        Objects.requireNonNull(record, "record");
    }

    /**
     * @param record a record whose store keeps no times it can report
     * @return the record with every time absent
     */
    public static RecordDetails withoutTimes(IdempotencyRecord record) {
        return new RecordDetails(record, null, null, null);
    }

    /** @return when the current claim was made, if the store keeps it */
    public Optional<Instant> claimed() {
        return Optional.ofNullable(claimedAt);
    }

    /** @return when the lease ends, if the record is in progress or executed and the store keeps it */
    public Optional<Instant> leaseEnd() {
        return Optional.ofNullable(leaseEnds);
    }

    /** @return when the record expires, if the store keeps it */
    public Optional<Instant> expiry() {
        return Optional.ofNullable(expiresAt);
    }
}
