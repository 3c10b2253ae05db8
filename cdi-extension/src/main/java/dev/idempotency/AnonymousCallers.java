package dev.idempotency;

/**
 * What an {@code @Idempotent} method does with a caller that is not authenticated, see
 * {@link Idempotent#anonymous()}.
 */
public enum AnonymousCallers {

    /**
     * Anonymous callers run like any other; where keys are scoped per principal
     * ({@link IdempotencyScope#PRINCIPAL}, {@link IdempotencyScope#TENANT_PRINCIPAL}) all of them
     * share one key space. The default.
     */
    ALLOW,

    /**
     * Anonymous callers are refused before anything is claimed or run: over HTTP with {@code 401}
     * and problem type {@code authentication-required} (with {@code WWW-Authenticate} when
     * {@code idempotency.authentication-challenge} is set), a non-HTTP call with
     * {@link dev.idempotency.exceptions.AuthenticationRequiredException}. Whatever the scope; it
     * matters most where keys are scoped per principal, since there every anonymous caller would
     * share one key space.
     */
    REJECT
}
