package dev.idempotency.config;

import java.lang.reflect.Method;
import java.util.Objects;

/**
 * A method as one bean has it: two beans inheriting one method are two endpoints, each with its
 * own policy (its class's configuration) and its own key space.
 *
 * @param beanClass the bean or resource class
 * @param method the method, possibly declared by a superclass
 */
public record BeanMethod(Class<?> beanClass, Method method) {

    /** Checks both parts. */
    public BeanMethod {
        Objects.requireNonNull(beanClass, "beanClass");
        Objects.requireNonNull(method, "method");
    }
}
