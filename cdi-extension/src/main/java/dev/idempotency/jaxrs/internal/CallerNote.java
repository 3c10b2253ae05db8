package dev.idempotency.jaxrs.internal;

import jakarta.annotation.Priority;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.SecurityContext;

import dev.idempotency.cdi.CurrentCaller;

/**
 * Notes every JAX-RS request as a request property, before anything else sees it, for {@link
 * CurrentCaller}: the beans a filter calls then have the caller of the request's {@code
 * SecurityContext} at the moment they are called, the caller the HTTP path has, also where the
 * application authenticates in a JAX-RS filter of its own (an API key, a bearer token) and the
 * servlet request knows no user. In a servlet container a request property is a servlet request
 * attribute, which {@link CurrentCaller} reads.
 *
 * <p>Once the request filters are done, the caller can no longer change (a {@code SecurityContext}
 * is set in a request filter only): {@link Settled}, the last of them, and this note as the last
 * response filter (for a request a filter aborted or none matched) settle the note on the request's
 * {@code SecurityContext}. The resource, its mappers and whatever runs once JAX-RS is done with the
 * request (a servlet filter after its chain, also while an asynchronous resource's answer is still
 * to come) keep that caller. Without it, Jersey still answered the request's caller there, but
 * RESTEasy reads it from its thread's context, which is gone once the resource method returned, so
 * those calls took the servlet request's user: none where the application authenticates itself,
 * one key space for all its callers.
 *
 * <p>Two or three request properties set per request. Registered by {@code IdempotencyFeature} (a
 * {@code Feature} too), so that an application that lists its classes and names only that feature
 * has it as well.
 */
@PreMatching
@Priority(Integer.MIN_VALUE) // first of the request filters, last of the response filters
public final class CallerNote implements ContainerRequestFilter, ContainerResponseFilter {

    @Override
    public void filter(ContainerRequestContext request) {
        request.setProperty(CurrentCaller.JAX_RS_REQUEST, request);
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        settle(request);
    }

    /** Puts the request's {@code SecurityContext} in place of the request, where there is one. */
    static void settle(ContainerRequestContext request) {
        SecurityContext security;
        try {
            security = request.getSecurityContext();
        } catch (RuntimeException e) {
            return; // never where these runtimes answer; the live note still answers, or refuses
        }
        if (security != null) {
            request.setProperty(CurrentCaller.JAX_RS_REQUEST, security);
        }
    }

    /** The last request filter of a matched request: the caller is settled from here on. */
    @Priority(Integer.MAX_VALUE)
    public static final class Settled implements ContainerRequestFilter {

        @Override
        public void filter(ContainerRequestContext request) {
            settle(request);
        }
    }
}
