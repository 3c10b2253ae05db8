package dev.idempotency.config;

import dev.idempotency.exceptions.IdempotencyDefinitionException;
import dev.idempotency.internal.Messages;

/**
 * The deployment's checks of a method's scope against the library settings: a method scoped by
 * tenant needs a tenant source that it can have (a non-HTTP call has no header and no host; a JWT
 * claim needs the MicroProfile JWT API), and no server-issued keys (a token is its principal's,
 * whatever the tenant). Whether the resolver bean exists is checked once the
 * beans are known (the extension, at {@code AfterDeploymentValidation}).
 */
public final class ScopeChecks {

    /** The MicroProfile JWT API's token type, looked for by name: the API is optional. */
    public static final String JWT_TYPE = "org.eclipse.microprofile.jwt.JsonWebToken";

    private ScopeChecks() {
    }

    /**
     * @param where "bean X, method m", for messages
     * @param policy the method's policy
     * @param settings the library settings
     * @param http whether the method is a JAX-RS resource method (else its key comes from
     *     {@code @IdempotencyKey} parameters and it has no request)
     * @param jwtApiPresent whether the application sees the MicroProfile JWT API
     * @throws IdempotencyDefinitionException naming the method, the key to set and what is allowed
     */
    public static void check(String where, IdempotencyPolicy policy, LibrarySettings settings, boolean http,
            boolean jwtApiPresent) {
        if (!policy.tenantScoped()) {
            return;
        }
        TenantSource source = settings.tenantSource();
        String scope = policy.scope().name();
        if (policy.serverIssuedKeys()) {
            throw new IdempotencyDefinitionException(Messages.tokensScopedByTenant(where, scope));
        }
        String keyHeader = policy.keySource().header();
        if (source == TenantSource.HEADER && keyHeader != null && keyHeader.equalsIgnoreCase(settings.tenantHeader())) {
            throw new IdempotencyDefinitionException(Messages.keyHeaderIsTheTenants(where, keyHeader, scope,
                    LibrarySettings.TENANT_HEADER, settings.tenantHeader()));
        }
        if (source == TenantSource.NONE) {
            throw new IdempotencyDefinitionException(Messages.tenantScopeWithoutSource(where, scope,
                    LibrarySettings.TENANT_SOURCE));
        }
        if (!http && source.httpOnly()) {
            throw new IdempotencyDefinitionException(Messages.tenantSourceWithoutRequest(where, scope,
                    LibrarySettings.TENANT_SOURCE, source.name()));
        }
        if (source == TenantSource.JWT_CLAIM && !jwtApiPresent) {
            throw new IdempotencyDefinitionException(Messages.jwtApiMissing(where, scope, LibrarySettings.TENANT_SOURCE));
        }
    }

    /** @return whether the MicroProfile JWT API can be loaded by the library's class loader */
    public static boolean jwtApiPresent() {
        try {
            Class.forName(JWT_TYPE, false, ScopeChecks.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
