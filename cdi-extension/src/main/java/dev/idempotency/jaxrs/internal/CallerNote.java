package dev.idempotency.jaxrs.internal;

import java.security.Principal;

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
 * <p>RESTEasy reads a request's {@code SecurityContext} from its thread's context, which is gone
 * once the resource method returned: a bean called then (a servlet filter after its chain, also
 * while an asynchronous resource's answer is still to come) took the servlet request's user, none
 * where the application authenticates itself, one key space for all its callers. So {@link
 * Settled}, the last request filter, and this note as the last response filter (for a request a
 * filter aborted or none matched) keep the request's {@code SecurityContext} as it is then, and
 * the note answers the live one wherever there is one, the kept one only where there is none.
 * The live one first, because a filter of the application that runs after {@link Settled} (one of
 * the same priority, whose order is the runtime's) or a resource method may still set another.
 *
 * <p>A request property set as a request comes in, and once more as its request filters end (or
 * its answer leaves). Registered by {@code IdempotencyFeature} (a {@code Feature} too), so that an
 * application that lists its classes and names only that feature has it as well.
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

    /**
     * Keeps the request's {@code SecurityContext} as it is now beside the request, for when the
     * runtime no longer answers one; where it answers none now, what was kept stays.
     */
    static void settle(ContainerRequestContext request) {
        SecurityContext security;
        try {
            security = request.getSecurityContext();
        } catch (RuntimeException e) {
            return; // never where these runtimes answer: what was noted stays
        }
        if (security == null) {
            return;
        }
        if (request.getProperty(CurrentCaller.JAX_RS_REQUEST) instanceof LiveFirst kept) {
            kept.settled = security;
        } else {
            request.setProperty(CurrentCaller.JAX_RS_REQUEST, new LiveFirst(request, security));
        }
    }

    /** The request's live {@code SecurityContext} where the runtime answers one, else the one kept. */
    private static final class LiveFirst implements SecurityContext {
        private final ContainerRequestContext request;
        /** The one kept first (final: seen by any thread that sees the note). */
        private final SecurityContext first;
        /** The one kept later, by the last response filter; null before. */
        private volatile SecurityContext settled;

        LiveFirst(ContainerRequestContext request, SecurityContext first) {
            this.request = request;
            this.first = first;
        }

        private SecurityContext current() {
            SecurityContext live;
            try {
                live = request.getSecurityContext();
            } catch (RuntimeException e) {
                live = null; // a runtime done with the request
            }
            if (live != null) {
                return live;
            }
            SecurityContext later = settled;
            return later != null ? later : first;
        }

        @Override
        public Principal getUserPrincipal() {
            return current().getUserPrincipal();
        }

        @Override
        public boolean isUserInRole(String role) {
            return current().isUserInRole(role);
        }

        @Override
        public boolean isSecure() {
            return current().isSecure();
        }

        @Override
        public String getAuthenticationScheme() {
            return current().getAuthenticationScheme();
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
