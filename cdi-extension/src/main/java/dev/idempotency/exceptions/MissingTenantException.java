package dev.idempotency.exceptions;

/**
 * A non-HTTP call to a method whose keys are scoped by tenant ({@code scope = TENANT} or
 * {@code TENANT_PRINCIPAL}) has no tenant: the caller's JWT lacks the configured claim, or the
 * application's {@code IdempotencyScopeResolver} answered none. Nothing was claimed or run: a
 * call without a tenant is never put in a space shared with other calls. Over HTTP (when it
 * reaches JAX-RS) it is answered {@code 400} with problem type {@code missing-tenant}.
 */
public class MissingTenantException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message the coded message
     */
    public MissingTenantException(String message) {
        super(message);
    }
}
