/**
 * The support look-up behind {@code IdempotencySupportResource}: which record a support question
 * (endpoint, caller, tenant, key) points at, what the store holds for it, and the release of a claim
 * whose owner is gone. Implementation; not an API.
 */
package dev.idempotency.lookup;
