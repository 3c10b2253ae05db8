package dev.idempotency.config;

import java.lang.reflect.Method;
import java.util.Optional;


/** The policy a test's bean method gets with no configuration at all: its annotation's values only. */
public final class Policies {

    private Policies() {
    }

    /**
     * @param beanClass the test's bean class
     * @param method the name of its public, parameterless {@code @Idempotent} method
     * @return the policy resolved as at deployment, with no config key set
     */
    public static IdempotencyPolicy unconfigured(Class<?> beanClass, String method) {
        try {
            return unconfigured(beanClass, beanClass.getMethod(method));
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException(beanClass.getName() + " has no public method " + method + "()", e);
        }
    }

    /**
     * @param beanClass the test's bean class
     * @param method its {@code @Idempotent} method
     * @return the policy resolved as at deployment, with no config key set
     */
    public static IdempotencyPolicy unconfigured(Class<?> beanClass, Method method) {
        return new PolicyResolver(key -> Optional.empty()).resolve(beanClass, method);
    }
}
