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

import dev.idempotency.internal.Messages;

/**
 * The authenticated caller of a non-HTTP invocation (and of {@code IdempotencyTokens.issue()}),
 * or {@code null} when there is none. Servers answer the CDI {@code Principal} bean of an
 * unauthenticated caller with a principal of their own ("ANONYMOUS" on Payara, "anonymous" on
 * WildFly, "UNAUTHENTICATED" on Open Liberty), which must never count as a user of that name
 * (it would share that user's keys, and be issued tokens refused to anonymous callers). So the
 * caller comes from Jakarta Security's {@code SecurityContext.getCallerPrincipal()}, which is
 * {@code null} for an unauthenticated caller on every server, wherever the server offers it;
 * else from the {@code Principal} bean, the servers' names for the unauthenticated caller
 * counting as anonymous. Chosen once, at the first use.
 */
@ApplicationScoped
public class CurrentCaller {

    private static final Logger LOG = Logger.getLogger(CurrentCaller.class.getName());
    private static final String SECURITY_CONTEXT = "jakarta.security.enterprise.SecurityContext";

    /** What servers call the unauthenticated caller in their {@code Principal} bean. */
    static final Set<String> CONTAINER_ANONYMOUS_NAMES = Set.of("ANONYMOUS", "anonymous", "UNAUTHENTICATED",
            "guest", "<anonymous>");

    @Inject
    BeanManager beanManager;

    @Inject
    Instance<Principal> principal;

    private Supplier<Principal> source;

    @PostConstruct
    void choose() {
        Supplier<Principal> security = jakartaSecurity();
        if (security != null) {
            source = security;
        } else if (principal.isResolvable()) {
            LOG.fine(Messages.callerFromPrincipalBean(CONTAINER_ANONYMOUS_NAMES));
            source = () -> anonymousAsNull(principal.get());
        } else {
            source = () -> null;
        }
    }

    /** @return the authenticated caller, or {@code null} for an anonymous one (or no security on this thread) */
    public Principal get() {
        try {
            return source.get();
        } catch (RuntimeException e) {
            return null; // no security context on this thread (a timer, a message): anonymous
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
