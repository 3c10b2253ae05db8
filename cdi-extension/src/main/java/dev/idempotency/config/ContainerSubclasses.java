package dev.idempotency.config;

import java.lang.reflect.Method;

/**
 * Tells the bean class behind an intercepted instance: containers intercept through subclasses
 * they generate (Weld's {@code X$Proxy$_$$_WeldSubclass}, synthetic classes), EJB containers
 * through the bean class itself.
 */
public final class ContainerSubclasses {

    private ContainerSubclasses() {
    }

    /**
     * @param targetClass the class of the intercepted instance
     * @param method the intercepted method
     * @return the nearest class up from {@code targetClass} that no container generated, or the
     *     method's declaring class when there is none
     */
    public static Class<?> beanClassOf(Class<?> targetClass, Method method) {
        for (Class<?> type = targetClass; type != null && type != Object.class; type = type.getSuperclass()) {
            if (!type.isSynthetic() && !type.getName().contains("$$") && !type.getName().contains("$Proxy$")) {
                return type;
            }
        }
        return method.getDeclaringClass();
    }
}
