package dev.idempotency.exceptions;

/**
 * The key of a first request to an endpoint with {@code @Idempotent(serverIssuedKeys = true)} is not a
 * token this application issued to the caller, or the token expired. Over HTTP this is answered
 * {@code 400} with problem type {@code unknown-token}; nothing is executed.
 */
public class UnknownIdempotencyTokenException extends InvalidIdempotencyKeyException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message the coded message, which never echoes the token
     */
    public UnknownIdempotencyTokenException(String message) {
        super(message);
    }
}
