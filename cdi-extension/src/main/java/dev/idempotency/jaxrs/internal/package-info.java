/**
 * The HTTP side's bytes: the Idempotency-Key parser and the other key sources (a header of the
 * endpoint's own, a JSON Pointer into the body), the buffered request body, the fingerprint in its
 * modes (bytes, RFC 8785 canonical JSON, multipart parts, none) and the captured response body.
 * Implementation; not an API.
 */
package dev.idempotency.jaxrs.internal;
