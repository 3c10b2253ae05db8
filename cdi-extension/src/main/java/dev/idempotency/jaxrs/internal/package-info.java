/**
 * The HTTP side's bytes: the Idempotency-Key parser, the buffered request body, the fingerprint, the captured response body, the claim of one request. Implementation; not an API.
 */
package dev.idempotency.jaxrs.internal;
