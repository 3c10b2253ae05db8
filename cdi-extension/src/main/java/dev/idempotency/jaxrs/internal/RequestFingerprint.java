package dev.idempotency.jaxrs.internal;

import dev.idempotency.internal.Hashing;

/**
 * The fingerprint of an HTTP request: SHA-256 over the method, the path, the query and the WHOLE
 * body. Two requests with the same key but a different fingerprint are a key reuse (422), never a
 * replay.
 */
public final class RequestFingerprint {

    private RequestFingerprint() {
    }

    /**
     * @param method the HTTP method
     * @param rawPath the request path as sent (not decoded)
     * @param rawQuery the query as sent, or {@code null}
     * @param body the whole body
     * @param bodyLength how many bytes of {@code body} are the body
     * @return the fingerprint
     */
    public static String of(String method, String rawPath, String rawQuery, byte[] body, int bodyLength) {
        return Hashing.sha256()
                .add("http")
                .add(method)
                .add(rawPath)
                .add(rawQuery == null ? "" : "?" + rawQuery)
                .add(body, 0, bodyLength)
                .finish();
    }
}
