package dev.idempotency.exceptions;

/**
 * A bad {@code @Idempotent} definition or library setting, found at deployment. The deployment
 * fails with it; its message names the bean, the method, the config key, the value and what is
 * allowed.
 */
public class IdempotencyDefinitionException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message the coded message
     */
    public IdempotencyDefinitionException(String message) {
        super(message);
    }
}
