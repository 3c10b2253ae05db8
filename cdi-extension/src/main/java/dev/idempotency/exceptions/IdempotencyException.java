package dev.idempotency.exceptions;

/**
 * The root of the exceptions this library throws at run time. Each carries the stable
 * message code of the situation (e.g. {@code IDEMP0301}) at the start of its message, so that
 * users can search for it.
 */
public class IdempotencyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message the coded message
     */
    public IdempotencyException(String message) {
        super(message);
    }

    /**
     * @param message the coded message
     * @param cause the underlying failure
     */
    public IdempotencyException(String message, Throwable cause) {
        super(message, cause);
    }
}
