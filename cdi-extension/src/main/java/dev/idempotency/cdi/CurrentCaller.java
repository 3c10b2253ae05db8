package dev.idempotency.cdi;

import java.security.Principal;
import java.util.Set;
import java.util.function.Supplier;
import java.util.logging.Logger;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.SecurityContext;

import dev.idempotency.internal.Messages;

/**
 * The authenticated caller of a non-HTTP invocation (and of {@code IdempotencyTokens.issue()}),
 * or {@code null} when there is none. Servers answer the CDI {@code Principal} bean, and some
 * Jakarta Security's {@code SecurityContext.getCallerPrincipal()} too, for an unauthenticated
 * caller with a principal of their own ("ANONYMOUS" on Payara, "anonymous" on WildFly,
 * "UNAUTHENTICATED" on Open Liberty), which must never count as a user of that name (it would
 * share that user's keys, and be issued tokens refused to anonymous callers). So:
 * <ol>
 * <li>inside a JAX-RS request (a resource, a filter, a mapper calling the bean), the caller of the
 * request's JAX-RS {@code SecurityContext} as it is at the call ({@code CallerNote} notes the
 * request before it is matched): the caller the HTTP path scopes keys by, taken as it is, also
 * where the application authenticates in a JAX-RS filter of its own and the servlet request knows
 * no user (taken for anonymous, every such caller shared one key space, and one was replayed
 * another's result); where the runtime no longer answers it (RESTEasy once the resource method
 * returned: a servlet filter after its chain), the one kept as the request filters ended, or as the
 * answer left; on another thread of the request no HTTP request is seen (below);</li>
 * <li>inside another HTTP request, the request's user principal, which the Servlet specification
 * makes {@code null} for an unauthenticated caller on every server: a real user of any name is that
 * user;</li>
 * <li>else (a message, a timer, a thread of the application's) Jakarta Security's caller
 * principal where the server offers it, else the {@code Principal} bean; there, the servers'
 * names for the unauthenticated caller count as anonymous.</li>
 * </ol>
 * The sources are chosen once, at the first use.
 */
@ApplicationScoped
public class CurrentCaller {

    private static final Logger LOG = Logger.getLogger(CurrentCaller.class.getName());
    private static final String SECURITY_CONTEXT = "jakarta.security.enterprise.SecurityContext";

    /**
     * The request property (a servlet request attribute) that holds a JAX-RS request's own context
     * while its request filters run, then a {@code SecurityContext} that answers the request's live
     * one, or the one it had as its request filters ended where the runtime no longer answers one.
     */
    public static final String JAX_RS_REQUEST = CurrentCaller.class.getName() + ".jaxRsRequest";

    /** What servers call the unauthenticated caller in their {@code Principal} bean. */
    static final Set<String> CONTAINER_ANONYMOUS_NAMES = Set.of("ANONYMOUS", "anonymous", "UNAUTHENTICATED");

    @Inject
    BeanManager beanManager;

    @Inject
    Instance<Principal> principal;

    @Inject
    Instance<HttpServletRequest> httpRequest;

    private Supplier<Principal> source;
    private HttpServletRequest request;

    @PostConstruct
    void choose() {
        request = httpRequest.isResolvable() ? httpRequest.get() : null; // a proxy to the current request
        Supplier<Principal> security = jakartaSecurity();
        if (security != null) {
            source = security;
        } else if (principal.isResolvable()) {
            LOG.fine(Messages.callerFromPrincipalBean(CONTAINER_ANONYMOUS_NAMES));
            source = principal::get;
        } else {
            source = () -> null;
        }
    }

    /** @return the authenticated caller, or {@code null} for an anonymous one (or no security on this thread) */
    public Principal get() {
        if (request != null) {
            Object noted;
            try {
                noted = request.getAttribute(JAX_RS_REQUEST);
            } catch (RuntimeException e) {
                return fromSecurity(); // no HTTP request on this thread: a message, a timer
            }
            // Outside the catch: an application's SecurityContext that fails fails the call, never
            // turns its caller into an anonymous one.
            return ofHttpRequest(request, noted);
        }
        return fromSecurity();
    }

    /**
     * @param request the HTTP request of the call
     * @param noted its {@link #JAX_RS_REQUEST} property, {@code null} where JAX-RS never saw it
     * @return the request's JAX-RS caller where JAX-RS noted it, else its servlet user principal
     */
    static Principal ofHttpRequest(HttpServletRequest request, Object noted) {
        // RESTEasy reads a request's SecurityContext from its thread's context, where there is none
        // once the resource method returned: CallerNote's settled note keeps the one it had then.
        SecurityContext security;
        if (noted == null) {
            security = null; // a servlet or another framework's request: its user principal
        } else if (noted instanceof ContainerRequestContext jaxRs) {
            security = jaxRs.getSecurityContext();
        } else if (noted instanceof SecurityContext settled) {
            security = settled;
        } else {
            // Another copy of the JAX-RS API (split class loaders): its caller cannot be read, and
            // the servlet request's user may be no one where the application authenticates itself.
            throw new IllegalStateException(Messages.unreadableCallerNote(noted.getClass()));
        }
        return security != null ? security.getUserPrincipal() : request.getUserPrincipal();
    }

    /** @return Jakarta Security's or the {@code Principal} bean's caller, the servers' anonymous names as none */
    private Principal fromSecurity() {
        try {
            return anonymousAsNull(source.get());
        } catch (RuntimeException e) {
            return null; // no security context on this thread: anonymous
        }
    }

    static Principal anonymousAsNull(Principal candidate) {
        return candidate == null || candidate.getName() == null || CONTAINER_ANONYMOUS_NAMES.contains(candidate.getName())
                ? null : candidate;
    }

    private Supplier<Principal> jakartaSecurity() {
        try {
            Class.forName(SECURITY_CONTEXT, false, CurrentCaller.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return null; // the server offers no Jakarta Security to this application
        }
        return SecurityContextCaller.of(beanManager);
    }
}
