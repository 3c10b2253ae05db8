/**
 * A claim's life after the store granted it: scoped keys and whose key space a request is in
 * (caller, tenant, where tenants come from), the owned claim ended exactly once (and
 * the claim of one HTTP request) (completed, marked executed, released), its binding to the JTA
 * transaction and to a pending stage, the outcome events. Implementation; not an API.
 */
package dev.idempotency.claim;
