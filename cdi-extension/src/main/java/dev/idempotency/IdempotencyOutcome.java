package dev.idempotency;

import dev.idempotency.exceptions.IdempotencyConflictException;
import dev.idempotency.exceptions.IdempotencyKeyReuseException;

/**
 * What happened to one request or invocation of an {@code @Idempotent} method, as reported by
 * an {@link IdempotencyEvent}.
 */
public enum IdempotencyOutcome {
    /** The key was new (or its lease had run out): this caller claimed it and the method runs. */
    CLAIMED,
    /** The method's outcome was stored under the key; retries now get it back. */
    COMPLETED,
    /** A retry got the stored outcome back; the method did not run. */
    REPLAYED,
    /** A retry came while the first request still ran: {@code 409} or {@link IdempotencyConflictException}. */
    CONFLICT,
    /** The key was reused with another request or other arguments: {@code 422} or {@link IdempotencyKeyReuseException}. */
    MISMATCH,
    /**
     * A retry of work that committed but whose outcome was lost (or too large to store): it is
     * not run again, and the caller is told so.
     */
    OUTCOME_LOST,
    /** The method failed (or answered {@code 5xx}): the claim was released so that a retry runs again. */
    RELEASED,
    /** The store could not be reached: fail closed ({@code 503}) or, with {@code failOpen}, run unprotected. */
    STORE_FAILURE
}
