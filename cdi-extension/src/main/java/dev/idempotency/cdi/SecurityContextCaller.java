package dev.idempotency.cdi;

import java.security.Principal;
import java.util.function.Supplier;

import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.security.enterprise.SecurityContext;

/** The caller as Jakarta Security tells it; loaded only where its API is present. */
final class SecurityContextCaller {

    private SecurityContextCaller() {
    }

    /** @return the caller's principal ({@code null} when unauthenticated), or {@code null} when there is no such bean */
    static Supplier<Principal> of(BeanManager beanManager) {
        Instance<SecurityContext> contexts = beanManager.createInstance().select(SecurityContext.class);
        if (!contexts.isResolvable()) {
            return null;
        }
        SecurityContext context = contexts.get();
        return context::getCallerPrincipal;
    }
}
