package dev.idempotency.claim;

import java.security.Principal;

import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.spi.ScopeRequest;

/**
 * Whose key space one request or invocation is in, as its policy says: the caller and, in the
 * tenant scopes, the tenant; or why it may not go on (an anonymous caller where the policy refuses
 * them, no tenant where one is needed). Never a shared space in place of a missing tenant.
 *
 * @param principal the caller, or {@code null} when anonymous
 * @param tenant the tenant, or {@code null} outside the tenant scopes
 * @param refusal why the request may not go on, or {@code null} when it may
 */
public record KeySpace(Principal principal, String tenant, Refusal refusal) {

    /** Why a request is refused before anything is claimed. */
    public enum Refusal {
        /** The caller is anonymous, and must authenticate ({@code 401}). */
        AUTHENTICATION_REQUIRED,
        /** The request has no tenant, and keys are scoped by tenant ({@code 400}). */
        MISSING_TENANT
    }

    /**
     * @param policy the method's policy
     * @param principal the caller, or {@code null} when anonymous
     * @return whether the policy refuses this caller as anonymous, before anything else is looked at
     */
    public static boolean rejectsAsAnonymous(IdempotencyPolicy policy, Principal principal) {
        return policy.rejectsAnonymous() && ScopedKey.isAnonymous(principal);
    }

    /**
     * @param policy the method's policy
     * @param tenants where tenants come from
     * @param request the request or invocation (its principal included)
     * @return its key space, or a refusal
     */
    public static KeySpace of(IdempotencyPolicy policy, TenantLookup tenants, ScopeRequest request) {
        Principal principal = request.principal();
        if (rejectsAsAnonymous(policy, principal)) {
            return new KeySpace(principal, null, Refusal.AUTHENTICATION_REQUIRED);
        }
        if (!policy.tenantScoped()) {
            return new KeySpace(principal, null, null);
        }
        String tenant = tenants.tenantOf(request);
        if (tenant == null || tenant.isEmpty()) {
            boolean authenticate = tenants.fromCredentials() && ScopedKey.isAnonymous(principal);
            return new KeySpace(principal, null, authenticate ? Refusal.AUTHENTICATION_REQUIRED : Refusal.MISSING_TENANT);
        }
        return new KeySpace(principal, tenant, null);
    }

    /** @return whether the request may go on */
    public boolean admitted() {
        return refusal == null;
    }

    /**
     * @param policy the method's policy
     * @param rawKey the key as the client sent it
     * @return the scoped, hashed key in this space
     */
    public String key(IdempotencyPolicy policy, String rawKey) {
        return ScopedKey.of(policy, principal, tenant, rawKey);
    }
}
