package dev.idempotency;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.idempotency.exceptions.InvalidIdempotencyKeyException;

/**
 * Marks where the idempotency key of an {@link Idempotent} CDI bean, EJB or message-consumer
 * method comes from: a parameter, or a bean property of it.
 *
 * <pre>{@code
 * @Idempotent
 * public Receipt onOrder(@IdempotencyKey("orderNo") OrderMessage message) { ... }
 *
 * @Idempotent
 * public void transfer(@IdempotencyKey("customer.id") Transfer transfer, @IdempotencyKey String requestId) { ... }
 * }</pre>
 *
 * <p>Without a value, the parameter itself is the key (its {@code toString()}: a {@code String},
 * a number, a {@code UUID}, ...). With a value, a dot-separated property path is followed:
 * each step is a getter ({@code getX()}/{@code isX()}), a record component or a public field.
 * Several marked parameters combine into one key, in parameter order. Each part must be 1 to
 * {@code idempotency.max-key-length} characters of printable US-ASCII, like an HTTP key;
 * otherwise the call fails with {@link InvalidIdempotencyKeyException} and nothing runs.
 *
 * <p>Paths are resolved at deployment: a path that does not exist on the parameter's declared
 * type, or this annotation on a method without {@code @Idempotent}, fails the deployment.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface IdempotencyKey {

    /**
     * @return a property path into the parameter, e.g. {@code "orderNo"} or {@code "customer.id"};
     *     empty (the default) for the parameter itself
     */
    String value() default "";
}
