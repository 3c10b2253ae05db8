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
 * CurrentCaller}: the beans a resource (or a filter, a sub-resource locator, an exception mapper)
 * calls then have the caller of the request's {@code SecurityContext} at the moment they are
 * called, the caller the HTTP path has, also where the application authenticates in a JAX-RS filter
 * of its own (an API key, a bearer token) and the servlet request knows no user. In a servlet
 * container a request property is a servlet request attribute, which {@link CurrentCaller} reads.
 *
 * <p>As the last response filter it settles the note on the request's {@code SecurityContext} as
 * JAX-RS leaves it: beans called once JAX-RS is done with the request (a servlet filter after its
 * chain, an {@code AsyncListener}) keep that caller. Without it, Jersey still answered the request's
 * caller there while RESTEasy's context was gone, so those calls took the servlet request's user,
 * none where the application authenticates itself: anonymous, one key space for all callers.
 *
 * <p>One property set per request, two where a response is filtered. Registered by {@code
 * IdempotencyFeature} (a {@code Feature} too), so that an application that lists its classes and
 * names only that feature has it as well.
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
        SecurityContext security = request.getSecurityContext();
        if (security != null) {
            request.setProperty(CurrentCaller.JAX_RS_REQUEST, security);
        }
    }
}
