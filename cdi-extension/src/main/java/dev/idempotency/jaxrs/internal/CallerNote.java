package dev.idempotency.jaxrs.internal;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;

import dev.idempotency.cdi.CurrentCaller;

/**
 * Notes the request's JAX-RS {@code SecurityContext} as a request property, once the application's
 * filters ran, for {@link CurrentCaller}: the beans a resource calls then have the caller the HTTP
 * path has, also where the application authenticates in a JAX-RS filter of its own (an API key, a
 * bearer token) and the servlet request knows no user. In a servlet container a request property is
 * a servlet request attribute, which {@link CurrentCaller} reads. One property set per request, on
 * every resource method.
 */
public final class CallerNote implements ContainerRequestFilter {

    @Override
    public void filter(ContainerRequestContext request) {
        request.setProperty(CurrentCaller.JAX_RS_SECURITY_CONTEXT, request.getSecurityContext());
    }
}
