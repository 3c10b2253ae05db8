/**
 * The HTTP side's bytes: the Idempotency-Key parser, the buffered request body, the fingerprint
 * and the captured response body. Implementation; not an API.
 */
package dev.idempotency.jaxrs.internal;
