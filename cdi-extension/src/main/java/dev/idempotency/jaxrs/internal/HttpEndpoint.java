package dev.idempotency.jaxrs.internal;

import java.lang.reflect.Method;

import dev.idempotency.config.IdempotencyPolicy;

/**
 * One {@code @Idempotent} resource method, as the filters see it.
 *
 * @param policy its validated policy
 * @param resourceClass the resource class JAX-RS matched (whose instance the method runs on)
 * @param method the resource method
 * @param async whether it answers through {@code AsyncResponse} or a {@code CompletionStage}
 * @param intercepted whether the CDI interceptor sees the method, and so tells whether it ran
 */
public record HttpEndpoint(IdempotencyPolicy policy, Class<?> resourceClass, Method method, boolean async,
        boolean intercepted) {
}
