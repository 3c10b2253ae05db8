package dev.idempotency.jaxrs.internal;

import java.lang.reflect.Method;

import dev.idempotency.config.IdempotencyPolicy;

/**
 * One {@code @Idempotent} resource method, as the filters see it.
 *
 * @param policy its validated policy
 * @param method the resource method
 * @param async whether it answers through {@code AsyncResponse} or a {@code CompletionStage}
 * @param intercepted whether the CDI interceptor sees the method, and so tells whether it ran
 */
public record HttpEndpoint(IdempotencyPolicy policy, Method method, boolean async, boolean intercepted) {
}
