package dev.idempotency.cdi;

import java.security.Principal;

import jakarta.enterprise.context.ContextNotActiveException;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.json.JsonNumber;
import jakarta.json.JsonString;

import org.eclipse.microprofile.jwt.JsonWebToken;

import dev.idempotency.claim.TenantLookup;
import dev.idempotency.spi.ScopeRequest;

/**
 * The tenant as a claim of the caller's MicroProfile JWT; loaded only where its API is present
 * (the extension checks at deployment). MicroProfile JWT makes the token the caller's principal
 * (the JAX-RS {@code SecurityContext}'s, and Jakarta Security's), so the principal is asked first;
 * else the {@code JsonWebToken} bean, for a bean called inside a request whose principal is
 * another type. A claim that is text or a number names the tenant; an array, an object or a
 * boolean names none (which tenant would it be?).
 */
public final class JwtTenantClaim implements TenantLookup {

    private final String claim;
    private final Instance<JsonWebToken> tokens;

    private JwtTenantClaim(String claim, Instance<JsonWebToken> tokens) {
        this.claim = claim;
        this.tokens = tokens;
    }

    /**
     * @param beanManager where the {@code JsonWebToken} bean is looked up, once
     * @param claim the claim naming the tenant
     * @return the look-up
     */
    static TenantLookup of(BeanManager beanManager, String claim) {
        Instance<JsonWebToken> tokens = beanManager.createInstance().select(JsonWebToken.class);
        return new JwtTenantClaim(claim, tokens.isResolvable() ? tokens : null);
    }

    /**
     * @param claim the claim naming the tenant
     * @return the look-up from the principal alone, with no {@code JsonWebToken} bean to fall back on
     */
    public static TenantLookup ofPrincipal(String claim) {
        return new JwtTenantClaim(claim, null);
    }

    @Override
    public String tenantOf(ScopeRequest request) {
        Principal principal = request.principal();
        if (principal instanceof JsonWebToken token) {
            return text(token.getClaim(claim));
        }
        if (principal == null || tokens == null) {
            return null;
        }
        try (Instance.Handle<JsonWebToken> handle = tokens.getHandle()) {
            JsonWebToken token = handle.get();
            return token.getName() == null ? null : text(token.getClaim(claim));
        } catch (ContextNotActiveException e) {
            return null; // no request on this thread: no token
        }
    }

    @Override
    public boolean fromCredentials() {
        return true;
    }

    static String text(Object value) {
        if (value instanceof JsonString string) {
            return string.getString();
        }
        if (value instanceof String string) {
            return string;
        }
        if (value instanceof JsonNumber || value instanceof Number) {
            return value.toString();
        }
        return null;
    }
}
