/**
 * The exceptions a caller of an {@code @Idempotent} method may meet: {@link
 * dev.idempotency.exceptions.IdempotencyException} and its kinds (in progress, key reused, bad
 * key, token refusals, no tenant, authentication required), and the deployment's {@link
 * dev.idempotency.exceptions.IdempotencyDefinitionException}. Over HTTP the library's exception
 * mapper turns each into its RFC 9457 problem. A store's failure is
 * {@link dev.idempotency.spi.IdempotencyStoreException}, in the SPI.
 */
package dev.idempotency.exceptions;
