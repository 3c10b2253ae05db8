package dev.idempotency.spi;

/**
 * Tells which tenant an idempotent request or invocation belongs to, for methods whose keys are
 * scoped by tenant ({@code @Idempotent(scope = TENANT)} or {@code TENANT_PRINCIPAL}): the
 * tenant's name is hashed into the key, so that two tenants sending the same key never meet.
 *
 * <p><b>Providing one.</b> Implement this interface as a CDI bean (typically
 * {@code @ApplicationScoped}) and set {@code idempotency.tenant.source=RESOLVER}. The bean is not
 * picked up on its own: which tenant a key belongs to is a security decision, and a bean arriving
 * in some jar must not silently move keys to other spaces. With that setting and a tenant-scoped
 * method, the deployment fails unless exactly one such bean resolves (an {@code @Alternative
 * @Priority} one wins, as for the store SPI).
 *
 * <p><b>When it is called.</b> Once per idempotent request that carries a key (over HTTP after
 * authentication, before the body is read and before anything is claimed) and once per non-HTTP
 * invocation, on the caller's thread. It must be fast and thread-safe, and it must not call the
 * {@code @Idempotent} method it scopes. For a non-HTTP call {@link ScopeRequest#http()} is
 * {@code false} and there are no headers and no host: take the tenant from the principal, or from
 * a context of the application's own.
 *
 * <p><b>What it answers.</b> The tenant, any non-empty string (it is hashed, never stored as
 * such). {@code null} or an empty string means the request has no tenant: it is refused, and
 * nothing runs: over HTTP {@code 400} problem type {@code missing-tenant}, or {@code 401}
 * {@code authentication-required} when the caller is anonymous; for a non-HTTP call
 * {@link dev.idempotency.exceptions.MissingTenantException} (or
 * {@link dev.idempotency.exceptions.AuthenticationRequiredException} when anonymous). A request
 * without a tenant is never put in a shared space. An exception it throws propagates to the
 * caller unchanged (over HTTP the container answers {@code 500}); nothing was claimed.
 *
 * <p>Changing what a resolver answers for a request moves its keys to another space: retries of
 * keys recorded under the old answer run again.
 */
public interface IdempotencyScopeResolver {

    /**
     * @param request the request or invocation to scope
     * @return its tenant, or {@code null} (or {@code ""}) when it has none
     */
    String resolve(ScopeRequest request);
}
