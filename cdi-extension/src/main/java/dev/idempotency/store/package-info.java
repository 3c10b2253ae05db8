/**
 * The stores the core ships: the bounded in-memory store (the default), the tiered store over the
 * two store modules, and the replay cache. Public: applications and benchmarks may build them;
 * their behaviour follows the store SPI's contract.
 */
package dev.idempotency.store;
