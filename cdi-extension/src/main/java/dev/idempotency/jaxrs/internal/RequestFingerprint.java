package dev.idempotency.jaxrs.internal;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

import jakarta.json.JsonValue;

import dev.idempotency.config.BodyPointer;
import dev.idempotency.internal.Hashing;

/**
 * The fingerprint of an HTTP request: SHA-256 over the method, the path, the query and what the
 * endpoint's fingerprint mode reads of the body (by default the WHOLE body, byte for byte). Two
 * requests with the same key but a different fingerprint are a key reuse (422), never a replay.
 * Each mode hashes a tag of its own first, so that no two modes can produce one fingerprint.
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
     * @return the fingerprint of the whole request, body byte for byte
     */
    public static String of(String method, String rawPath, String rawQuery, byte[] body, int bodyLength) {
        return start("http", method, rawPath, rawQuery).add(body, 0, bodyLength).finish();
    }

    /**
     * @param method the HTTP method
     * @param rawPath the request path as sent
     * @param rawQuery the query as sent, or {@code null}
     * @return the fingerprint of the request without its body
     */
    static String withoutBody(String method, String rawPath, String rawQuery) {
        return start("http-none", method, rawPath, rawQuery).finish();
    }

    /**
     * @param method the HTTP method
     * @param rawPath the request path as sent
     * @param rawQuery the query as sent, or {@code null}
     * @param document the body as JSON
     * @return the fingerprint of the request with its body in canonical JSON
     */
    static String ofJson(String method, String rawPath, String rawQuery, JsonValue document) {
        return start("http-json", method, rawPath, rawQuery).add(CanonicalJson.of(document)).finish();
    }

    /**
     * @param method the HTTP method
     * @param rawPath the request path as sent
     * @param rawQuery the query as sent, or {@code null}
     * @param document the body as JSON
     * @param members the parts of it that count, in a fixed order
     * @return the fingerprint of the request with those parts in canonical JSON, a missing one
     *     hashed as absent (which JSON {@code null} is not)
     */
    static String ofJsonMembers(String method, String rawPath, String rawQuery, JsonValue document,
            List<BodyPointer> members) {
        Hashing hash = start("http-json-members", method, rawPath, rawQuery);
        for (BodyPointer member : members) {
            Optional<JsonValue> value = JsonBodies.at(document, member);
            hash.add(member.text());
            if (value.isPresent()) {
                hash.add(new byte[] {1}).add(CanonicalJson.of(value.get()));
            } else {
                hash.add(new byte[] {0});
            }
        }
        return hash.finish();
    }

    /**
     * @param method the HTTP method
     * @param rawPath the request path as sent
     * @param rawQuery the query as sent, or {@code null}
     * @param body the buffered body
     * @param parts its parts
     * @return the fingerprint of the request with each part's headers and content, not the boundary
     */
    static String ofParts(String method, String rawPath, String rawQuery, byte[] body, List<MultipartBodies.Part> parts) {
        Hashing hash = start("http-multipart", method, rawPath, rawQuery).add(String.valueOf(parts.size()));
        for (MultipartBodies.Part part : parts) {
            hash.add(String.valueOf(part.headers().size()));
            part.headers().forEach(hash::add);
            hash.add(body, part.start(), part.end() - part.start());
        }
        return hash.finish();
    }

    /**
     * @param ofBody a request's fingerprint by its mode
     * @param charsets the charsets its {@code Content-Type} declares (other than UTF-8 alone), as sent
     * @return the fingerprint of the request read in those charsets
     */
    static String inCharsets(String ofBody, List<String> charsets) {
        Hashing hash = Hashing.sha256().add("http-charset").add(String.valueOf(charsets.size()));
        charsets.forEach(charset -> hash.add(charset.toLowerCase(Locale.ROOT)));
        return hash.add(ofBody).finish();
    }

    private static Hashing start(String mode, String method, String rawPath, String rawQuery) {
        return Hashing.sha256()
                .add(mode)
                .add(method)
                .add(rawPath)
                .add(rawQuery == null ? "" : "?" + rawQuery);
    }
}
