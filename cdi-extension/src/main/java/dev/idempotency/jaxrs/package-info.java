/**
 * The JAX-RS integration: a {@code DynamicFeature} that attaches the Idempotency-Key filters to
 * {@code @Idempotent} resource methods, and the problem types of the HTTP contract.
 */
package dev.idempotency.jaxrs;
