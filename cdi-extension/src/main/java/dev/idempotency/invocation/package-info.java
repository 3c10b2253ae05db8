/**
 * Non-HTTP invocations: the plan of each method (where its key comes from, what it returns), key
 * extraction, and the JSON-B codec of results. Implementation; not an API.
 */
package dev.idempotency.invocation;
