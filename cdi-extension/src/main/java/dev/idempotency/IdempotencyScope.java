package dev.idempotency;

/**
 * Who shares a key space, see {@link Idempotent#scope()}. In every scope the raw key is hashed
 * together with its scope (and its endpoint, principal or tenant) before it reaches the store.
 *
 * <p>The tenant scopes take the tenant from where {@code idempotency.tenant.source} says: a
 * request header ({@code HEADER}, e.g. {@code X-Tenant-Id}), a claim of the caller's MicroProfile
 * JWT ({@code JWT_CLAIM}), the request's host ({@code HOST}), or an application bean implementing
 * {@link dev.idempotency.spi.IdempotencyScopeResolver} ({@code RESOLVER}). A method in a tenant
 * scope while no source is configured fails the deployment. A request without a tenant never
 * falls back to a shared space: it is refused ({@code 400} problem type {@code missing-tenant},
 * or {@code 401} {@code authentication-required} for an anonymous caller where the tenant comes
 * from the credentials; {@link dev.idempotency.exceptions.MissingTenantException} for a non-HTTP
 * call) and nothing runs.
 */
public enum IdempotencyScope {

    /**
     * A key belongs to the authenticated principal (by name; all anonymous callers share one
     * space, unless {@link Idempotent#anonymous()} refuses them) and to the endpoint (the bean
     * class and method). The default: one caller can never replay another caller's response, and
     * one key can be used on two endpoints independently.
     */
    PRINCIPAL,

    /**
     * A key belongs to the endpoint only, whoever calls it. For machine-to-machine calls where
     * several clients (or a client whose credentials rotate) must see one another's keys. Any
     * caller who knows a key can then receive the response stored under it.
     */
    ENDPOINT,

    /**
     * A key belongs to the tenant and to the endpoint: every caller of one tenant shares its keys
     * (as an account's API keys share them at Stripe), so that a retry sent by another instance or
     * with rotated credentials of the same tenant gets the first answer; two tenants never meet.
     * Choose it where the tenant is established by the server (a JWT claim, a header a gateway sets,
     * the host, a resolver): with a header that clients set themselves, any client naming a tenant
     * shares its key space, so prefer {@link #TENANT_PRINCIPAL} there.
     */
    TENANT,

    /**
     * A key belongs to the tenant, the authenticated principal within it and the endpoint: for
     * applications whose user names are unique per tenant only ({@code alice} of one tenant is not
     * {@code alice} of another), which {@link #PRINCIPAL} alone would let share keys.
     */
    TENANT_PRINCIPAL
}
