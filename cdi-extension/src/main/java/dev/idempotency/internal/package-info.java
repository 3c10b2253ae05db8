/**
 * Shared helpers of the core: its coded messages, a throttled log, lazily built values, hashing.
 * Implementation; not an API.
 */
package dev.idempotency.internal;
