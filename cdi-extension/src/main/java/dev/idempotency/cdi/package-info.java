/**
 * The CDI integration: the portable extension that registers the library's beans and validates
 * every {@code @Idempotent} definition at deployment, and the interceptor.
 */
package dev.idempotency.cdi;
