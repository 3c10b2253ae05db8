package dev.idempotency.claim;

import java.security.Principal;

import dev.idempotency.IdempotencyScope;
import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.internal.Hashing;

/**
 * Turns a client's raw key into the key a store sees: hashed together with its scope, so that the
 * same raw key from two principals, two tenants or on two endpoints never meets in the store, and
 * raw keys never reach it. The fields are length-prefixed ({@link Hashing}), and the scope's name
 * comes first, so that no two scopes' keys can collide.
 */
public final class ScopedKey {

    /**
     * Stands for every unauthenticated caller. It starts with a NUL; a principal name that does too
     * (an identity store may take one) gets one more ({@link #principalName}), so that no name
     * can equal it, and ordinary names, and their stored keys, stay as they are.
     */
    private static final char NUL = '\u0000';
    private static final String ANONYMOUS = NUL + "anonymous";

    private ScopedKey() {
    }

    /**
     * @param scope the endpoint's scope (not a tenant scope)
     * @param endpoint the endpoint's identity ({@code fqcn#method})
     * @param principal the caller, or {@code null} when anonymous
     * @param rawKey the key as the client sent it
     * @return the scoped, hashed key (43 characters of base64url)
     */
    public static String of(IdempotencyScope scope, String endpoint, Principal principal, String rawKey) {
        return of(scope, endpoint, principal, null, rawKey);
    }

    /**
     * @param scope the endpoint's scope
     * @param endpoint the endpoint's identity ({@code fqcn#method})
     * @param principal the caller, or {@code null} when anonymous
     * @param tenant the caller's tenant: required in the tenant scopes, ignored in the others
     * @param rawKey the key as the client sent it
     * @return the scoped, hashed key (43 characters of base64url)
     */
    public static String of(IdempotencyScope scope, String endpoint, Principal principal, String tenant, String rawKey) {
        Hashing hashing = Hashing.sha256().add(scope.name()).add(endpoint);
        // PRINCIPAL and ENDPOINT hash as they always did: their stored keys survive an upgrade.
        switch (scope) {
            case PRINCIPAL -> hashing.add(principalName(principal));
            case ENDPOINT -> hashing.add("");
            case TENANT -> hashing.add(requireTenant(tenant));
            case TENANT_PRINCIPAL -> hashing.add(requireTenant(tenant)).add(principalName(principal));
        }
        return hashing.add(rawKey).finish();
    }

    private static String requireTenant(String tenant) {
        if (tenant == null || tenant.isEmpty()) {
            throw new IllegalArgumentException("a tenant scope without a tenant: refused before a key is made");
        }
        return tenant;
    }

    /**
     * The key of one request or invocation under a policy (not a tenant-scoped one): see
     * {@link #of(IdempotencyPolicy, Principal, String, String)}.
     *
     * @param policy the method's policy
     * @param principal the caller, or {@code null} when anonymous
     * @param rawKey the key (or token) as the client sent it
     * @return the scoped, hashed key
     */
    public static String of(IdempotencyPolicy policy, Principal principal, String rawKey) {
        return of(policy, principal, null, rawKey);
    }

    /**
     * The key of one request or invocation under a policy: {@link #of(IdempotencyScope, String, Principal, String, String)},
     * or, where keys are server-issued tokens, the token's use by its principal: a token is one
     * operation wherever it is sent, so its use is not scoped to the endpoint (sent to another
     * endpoint, it meets its first request's record and gets {@code 422}).
     *
     * @param policy the method's policy
     * @param principal the caller, or {@code null} when anonymous
     * @param tenant the caller's tenant ({@code null} outside the tenant scopes)
     * @param rawKey the key (or token) as the client sent it
     * @return the scoped, hashed key
     */
    public static String of(IdempotencyPolicy policy, Principal principal, String tenant, String rawKey) {
        return policy.serverIssuedKeys()
                ? Hashing.sha256().add("TOKEN_USE").add(principalName(principal)).add(rawKey).finish()
                : of(policy.scope(), policy.endpoint(), principal, tenant, rawKey);
    }

    /**
     * @param principal the principal a token is issued to, or {@code null} when anonymous
     * @param token the token
     * @return the key of the record saying the token was issued to the principal
     */
    public static String ofIssuedToken(Principal principal, String token) {
        return Hashing.sha256().add("TOKEN").add(principalName(principal)).add(token).finish();
    }

    /**
     * @param principal a caller, or {@code null}
     * @return whether it stands for no authenticated caller
     */
    public static boolean isAnonymous(Principal principal) {
        return principal == null || principal.getName() == null;
    }

    /**
     * @param principal a caller, or {@code null}
     * @return its name (one that starts with a NUL with one more before it: never the stand-in,
     *     and still one name per user), or the stand-in for every anonymous caller
     */
    public static String principalName(Principal principal) {
        String name = principal == null ? null : principal.getName();
        if (name == null) {
            return ANONYMOUS;
        }
        return !name.isEmpty() && name.charAt(0) == NUL ? NUL + name : name;
    }

    /**
     * @param scopedKey a scoped key
     * @return a short prefix that identifies it in logs without revealing anything
     */
    public static String forLog(String scopedKey) {
        return scopedKey.substring(0, Math.min(12, scopedKey.length()));
    }
}
