package dev.idempotency.exceptions;

/**
 * A key was used again with a different request (another body, method, path or arguments).
 * The stored outcome is never replayed to it; over HTTP this is answered {@code 422} with
 * problem type {@code key-reused}.
 */
public class IdempotencyKeyReuseException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message the coded message
     */
    public IdempotencyKeyReuseException(String message) {
        super(message);
    }
}
