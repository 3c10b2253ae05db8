package dev.idempotency.exceptions;

/**
 * A request with the same key is still running. The caller should retry later; over HTTP this
 * is answered {@code 409} with {@code Retry-After} and problem type {@code request-in-progress}.
 */
public class IdempotencyConflictException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message the coded message
     */
    public IdempotencyConflictException(String message) {
        super(message);
    }
}
