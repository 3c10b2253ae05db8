/**
 * The store SPI: {@link dev.idempotency.spi.IdempotencyStore} and the values it exchanges; and
 * the tenant SPI: {@link dev.idempotency.spi.IdempotencyScopeResolver}, which tells the tenant of
 * a {@link dev.idempotency.spi.ScopeRequest} where {@code idempotency.tenant.source=RESOLVER}.
 *
 * <p>A store is a CDI bean. To provide one, implement the interface, declare the bean
 * {@code @Alternative @Priority(n)} and extend the contract test from the {@code idempotency-cdi}
 * test-jar in its tests. Types here never expose the library's internals.
 */
package dev.idempotency.spi;
