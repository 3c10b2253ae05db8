/**
 * The user API: the {@link dev.idempotency.Idempotent} interceptor binding, its
 * {@link dev.idempotency.IdempotencyScope scopes}, server-issued tokens and the outcome events;
 * the exceptions are in {@link dev.idempotency.exceptions}.
 *
 * <p>Add the {@code idempotency-cdi} jar to the application (WEB-INF/lib), annotate a JAX-RS
 * resource method with {@code @Idempotent}, and the {@code Idempotency-Key} contract applies to
 * it. No beans.xml entry and no registration in the JAX-RS {@code Application} are needed: the
 * portable extension registers its beans, and a JAX-RS {@code DynamicFeature} attaches the
 * filters to annotated resource methods only.
 */
package dev.idempotency;
