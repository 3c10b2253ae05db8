package dev.idempotency.it.resources;

import java.security.Principal;
import java.util.Map;
import java.util.UUID;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;

import dev.idempotency.AnonymousCallers;
import dev.idempotency.IdempotencyScope;
import dev.idempotency.Idempotent;

/**
 * Endpoints whose key spaces are not the default: per user within a tenant (the tenant from the
 * {@code X-Tenant-Id} header, as {@code TenantScopesIT} configures it), and one that refuses
 * anonymous callers. Each counts its executions per name (and per tenant).
 */
@Path("tenants")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class TenantResource {

    @Inject
    Counters counters;

    @Context
    SecurityContext security;

    @GET
    @Path("count/{name}")
    public Map<String, Long> count(@PathParam("name") String name) {
        return Map.of("count", counters.get(name));
    }

    @POST
    @Path("orders")
    @Idempotent(scope = IdempotencyScope.TENANT_PRINCIPAL)
    public String order(@HeaderParam("X-Tenant-Id") String tenant, String body) {
        counters.increment("orders");
        return run("orders-" + tenant, tenant);
    }

    @POST
    @Path("members-only")
    @Idempotent(anonymous = AnonymousCallers.REJECT)
    public String membersOnly(String body) {
        return run("members-only", null);
    }

    private String run(String name, String tenant) {
        long n = counters.increment(name);
        Principal caller = security.getUserPrincipal();
        return "{\"tenant\":" + (tenant == null ? "null" : "\"" + tenant + "\"") + ",\"caller\":\""
                + (caller == null ? "anonymous" : caller.getName()) + "\",\"execution\":" + n + ",\"nonce\":\""
                + UUID.randomUUID() + "\"}";
    }
}
