package dev.idempotency.it.consumers;

import java.security.Principal;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.ext.Provider;

/**
 * Authentication as many applications write it: a JAX-RS filter that takes the caller from an API
 * key header ({@code X-Api-Key: <user>}, the key standing for its user here) and sets the
 * request's {@link SecurityContext}. The servlet container knows nothing of it: its request's user
 * principal stays {@code null}.
 */
@Provider
@ApiKeyAuthenticated
@Priority(Priorities.AUTHENTICATION)
public class ApiKeyAuthentication implements ContainerRequestFilter {

    static final String HEADER = "X-Api-Key";

    @Override
    public void filter(ContainerRequestContext request) {
        String user = request.getHeaderString(HEADER);
        if (user == null || user.isBlank()) {
            return;
        }
        SecurityContext container = request.getSecurityContext();
        Principal principal = () -> user;
        request.setSecurityContext(new SecurityContext() {
            @Override
            public Principal getUserPrincipal() {
                return principal;
            }

            @Override
            public boolean isUserInRole(String role) {
                return false;
            }

            @Override
            public boolean isSecure() {
                return container.isSecure();
            }

            @Override
            public String getAuthenticationScheme() {
                return HEADER;
            }
        });
    }
}
