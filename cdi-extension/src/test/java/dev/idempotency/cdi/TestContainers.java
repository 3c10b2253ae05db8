package dev.idempotency.cdi;

import org.jboss.weld.environment.se.Weld;

/** A Weld SE container holding the library's beans (as its bean archive would) plus a test's beans. */
final class TestContainers {

    private TestContainers() {
    }

    static Weld weld(Class<?>... beans) {
        return new Weld().disableDiscovery()
                .addExtension(new IdempotencyExtension())
                .addBeanClasses(IdempotencyInterceptor.class, IdempotencyRuntime.class, CurrentHttpClaimScope.class, CurrentCaller.class,
                        HttpInvocations.class, MethodInvocations.class, TokenIssuer.class)
                .addBeanClasses(beans);
    }
}
