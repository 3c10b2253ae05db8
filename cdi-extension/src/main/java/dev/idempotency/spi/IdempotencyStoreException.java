package dev.idempotency.spi;

import dev.idempotency.exceptions.IdempotencyException;

/**
 * The store cannot answer: down, unreachable, timed out, full. Callers fail closed on it (HTTP:
 * {@code 503} with {@code Retry-After}, the method not executed), unless the endpoint opted into
 * {@link dev.idempotency.Idempotent#failOpen()}.
 */
public class IdempotencyStoreException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, without raw keys or bodies
     */
    public IdempotencyStoreException(String message) {
        super(message);
    }

    /**
     * @param message what failed, without raw keys or bodies
     * @param cause the store client's exception
     */
    public IdempotencyStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
