package dev.idempotency.jaxrs.internal;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.ext.InterceptorContext;

import dev.idempotency.cdi.CurrentHttpClaim;
import dev.idempotency.claim.HttpClaim;

/**
 * Where the claim of an admitted request travels, owned here so that it is set in one place. It
 * takes two carriers, because its readers see different things: a request property for the
 * JAX-RS response side (the response filter and the writer interceptor, which for an async
 * endpoint run on another thread, where no CDI request context need be active), and the
 * request-scoped {@link CurrentHttpClaim} for the CDI interceptor on the resource method (which
 * cannot see the JAX-RS request) and for the end of the request.
 */
public final class AdmittedClaims {

    /** The request property holding the {@link HttpClaim} of an admitted request. */
    private static final String PROPERTY = HttpClaim.class.getName();

    private final CurrentHttpClaim current;

    /** @param current the request-scoped holder (a client proxy) */
    public AdmittedClaims(CurrentHttpClaim current) {
        this.current = current;
    }

    /**
     * @param request the request the claim was acquired for
     * @param claim the acquired claim
     */
    public void admit(ContainerRequestContext request, HttpClaim claim) {
        request.setProperty(PROPERTY, claim);
        current.set(claim);
    }

    /**
     * @param request a request
     * @return its claim, or {@code null} when it was not admitted under one
     */
    public static HttpClaim of(ContainerRequestContext request) {
        return (HttpClaim) request.getProperty(PROPERTY);
    }

    /**
     * @param context a writer interceptor's context
     * @return the claim of its request, or {@code null} when it was not admitted under one
     */
    public static HttpClaim of(InterceptorContext context) {
        return (HttpClaim) context.getProperty(PROPERTY);
    }
}
