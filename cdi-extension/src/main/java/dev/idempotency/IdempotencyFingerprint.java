package dev.idempotency;

/**
 * What of an HTTP request its fingerprint covers, see {@link Idempotent#fingerprint()}. A retry
 * with the same key and the same fingerprint replays the first answer; the same key with another
 * fingerprint gets {@code 422}. Every mode covers the HTTP method, the path and the query; they
 * differ in what they read of the body. The {@code Content-Type} is never covered: it selects the
 * resource method, whose identity already scopes the key.
 */
public enum IdempotencyFingerprint {

    /**
     * The whole body, byte for byte. The default: two bodies that differ in one byte (a space, the
     * order of two JSON members, a multipart boundary) are different requests.
     */
    BODY,

    /**
     * The body as canonical JSON (RFC 8785, JCS): the order of object members and insignificant
     * whitespace do not count, numbers compare by value as IEEE 754 doubles ({@code 4.50} is
     * {@code 4.5}; so integers beyond 2^53 that differ only in their last digits compare equal:
     * send such values as strings). With {@link Idempotent#fingerprintMembers()}, only the listed
     * members count. A body that is not JSON gets {@code 400} ({@code unreadable-body}) where the
     * endpoint consumes JSON only, and is fingerprinted as bytes elsewhere.
     */
    JSON,

    /**
     * A {@code multipart/*} body part by part: each part's headers and content, without the
     * boundary the client chose at random, so that a retried upload with a new boundary replays.
     * A body that is not multipart, or that cannot be split, is fingerprinted as bytes.
     */
    MULTIPART,

    /**
     * Not the body: the key alone decides, within the method, path and query. For senders whose
     * redeliveries carry a changing body (a delivery attempt counter, a timestamp) under one key.
     * A key reused with another body then replays the first answer instead of getting {@code 422}.
     */
    NONE
}
