package dev.idempotency.internal;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;

import jakarta.ws.rs.HttpMethod;

/**
 * Tells JAX-RS resource methods from other methods, following the JAX-RS rule that a method's
 * JAX-RS annotations may sit on the method it overrides or implements.
 */
public final class ResourceMethods {

    private ResourceMethods() {
    }

    /**
     * @param type the bean class
     * @param method one of its methods
     * @return whether the method carries an HTTP method designator ({@code @GET}, {@code @POST}, ...)
     *     itself or on a method of a supertype it overrides
     */
    public static boolean isResourceMethod(Class<?> type, Method method) {
        for (Class<?> current = type; current != null && current != Object.class; current = current.getSuperclass()) {
            if (declaresDesignator(current, method)) {
                return true;
            }
            for (Class<?> contract : current.getInterfaces()) {
                if (isResourceMethod(contract, method)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean declaresDesignator(Class<?> type, Method method) {
        try {
            Method declared = type.getDeclaredMethod(method.getName(), method.getParameterTypes());
            for (Annotation annotation : declared.getAnnotations()) {
                if (annotation.annotationType().isAnnotationPresent(HttpMethod.class)) {
                    return true;
                }
            }
            return false;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
