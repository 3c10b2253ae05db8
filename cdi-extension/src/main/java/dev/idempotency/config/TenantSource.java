package dev.idempotency.config;

/**
 * Where the tenant of a request comes from, for methods whose keys are scoped by tenant:
 * {@code idempotency.tenant.source}.
 */
public enum TenantSource {

    /** None configured (the default): a method in a tenant scope fails the deployment. */
    NONE(false, false),
    /** A request header, {@code idempotency.tenant.header}; HTTP only. */
    HEADER(true, false),
    /** A claim of the caller's MicroProfile JWT, {@code idempotency.tenant.jwt-claim}. */
    JWT_CLAIM(false, true),
    /**
     * The host the request was sent to (lower case, without the port); HTTP only. It is the
     * client's {@code Host} header: it keeps tenants apart only where a proxy answers the tenants'
     * host names alone.
     */
    HOST(true, false),
    /** The application's {@code IdempotencyScopeResolver} bean. */
    RESOLVER(false, true);

    private final boolean httpOnly;
    private final boolean fromCredentials;

    TenantSource(boolean httpOnly, boolean fromCredentials) {
        this.httpOnly = httpOnly;
        this.fromCredentials = fromCredentials;
    }

    /** @return whether only an HTTP request has it (a non-HTTP method cannot use it) */
    public boolean httpOnly() {
        return httpOnly;
    }

    /**
     * @return whether the tenant may come with the caller's credentials, so that an anonymous
     *     caller without one is told to authenticate ({@code 401}) rather than to send a tenant
     */
    public boolean fromCredentials() {
        return fromCredentials;
    }
}
