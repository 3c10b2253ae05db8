package dev.idempotency.jaxrs.internal;

import jakarta.annotation.Priority;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;

import dev.idempotency.cdi.CurrentCaller;

/**
 * Notes every JAX-RS request as a request property, before anything else sees it, for {@link
 * CurrentCaller}: the beans a resource (or a filter, a sub-resource locator, an exception mapper)
 * calls then have the caller of the request's {@code SecurityContext} at the moment they are
 * called, the caller the HTTP path has, also where the application authenticates in a JAX-RS filter
 * of its own (an API key, a bearer token) and the servlet request knows no user. In a servlet
 * container a request property is a servlet request attribute, which {@link CurrentCaller} reads.
 * One property set per request. Registered by {@code IdempotencyFeature} (a {@code Feature} too), so
 * that an application that lists its classes and names only that feature has it as well.
 */
@PreMatching
@Priority(Integer.MIN_VALUE)
public final class CallerNote implements ContainerRequestFilter {

    @Override
    public void filter(ContainerRequestContext request) {
        request.setProperty(CurrentCaller.JAX_RS_REQUEST, request);
    }
}
