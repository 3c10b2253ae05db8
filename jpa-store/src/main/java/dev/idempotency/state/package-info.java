/**
 * The state-machine guard: the allowed transitions of an entity's lifecycle (an order: PENDING,
 * PAID, REFUNDED, CANCELLED) declared once, and a transition that is idempotent by construction.
 * Moving an entity to the state it already holds writes nothing and returns that state; an
 * illegal move throws {@link dev.idempotency.state.IllegalTransitionException}; every write is
 * guarded by the entity's {@code @Version}. It is the last line of defence behind
 * {@code @Idempotent}: even a request that slipped past the key (another key, a store that lost
 * its records) cannot pay an order twice or pay a cancelled one.
 */
package dev.idempotency.state;
