package dev.idempotency.exceptions;

/**
 * A key is missing or malformed (empty, too long, not printable US-ASCII, several values). Over
 * HTTP this is answered {@code 400} with problem type {@code missing-key} or {@code invalid-key};
 * nothing is executed.
 */
public class InvalidIdempotencyKeyException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message the coded message, which says what is wrong without echoing the key
     */
    public InvalidIdempotencyKeyException(String message) {
        super(message);
    }
}
