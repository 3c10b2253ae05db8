package dev.idempotency.config;


/**
 * An {@code @Idempotent} JAX-RS resource method as HTTP clients see it.
 *
 * @param httpMethod {@code POST}, {@code PUT}, ...
 * @param pathTemplate its path relative to the JAX-RS application, e.g. {@code /payments/{id}}
 * @param policy its policy
 */
public record HttpOperation(String httpMethod, String pathTemplate, IdempotencyPolicy policy) {
}
