package dev.idempotency.jaxrs.internal;

import java.net.URI;
import java.security.Principal;

import jakarta.ws.rs.container.ContainerRequestContext;

import dev.idempotency.claim.TenantLookup;
import dev.idempotency.spi.ScopeRequest;

/** A JAX-RS request as a tenant source or an application's resolver sees it; answers from the request as asked. */
final class HttpScopeRequest implements ScopeRequest {

    private final ContainerRequestContext request;
    private final String endpoint;
    private final Principal principal;

    HttpScopeRequest(ContainerRequestContext request, String endpoint, Principal principal) {
        this.request = request;
        this.endpoint = endpoint;
        this.principal = principal;
    }

    @Override
    public String endpoint() {
        return endpoint;
    }

    @Override
    public Principal principal() {
        return principal;
    }

    @Override
    public boolean http() {
        return true;
    }

    @Override
    public String header(String name) {
        return TenantLookup.single(request.getHeaders().get(name));
    }

    @Override
    public String host() {
        URI uri = request.getUriInfo().getRequestUri();
        return TenantLookup.hostName(uri.getHost());
    }
}
