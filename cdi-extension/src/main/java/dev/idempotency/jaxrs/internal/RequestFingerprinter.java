package dev.idempotency.jaxrs.internal;

import java.util.List;
import java.util.stream.Collectors;

import jakarta.json.JsonValue;

import dev.idempotency.IdempotencyFingerprint;
import dev.idempotency.config.BodyPointer;
import dev.idempotency.config.FingerprintRule;

/**
 * One endpoint's way to fingerprint its requests, set up once from its {@link FingerprintRule}.
 * Every mode covers the method, the path and the query. An empty body is fingerprinted as bytes
 * in every mode that reads the body; so is a body the mode cannot read (not JSON, not multipart),
 * except that JSON endpoints refuse a body that is no JSON. Every mode that reads the body also
 * covers a {@code charset} the {@code Content-Type} declares other than UTF-8.
 */
final class RequestFingerprinter {

    private final FingerprintRule rule;

    RequestFingerprinter(FingerprintRule rule) {
        this.rule = rule;
    }

    /** @return whether this endpoint reads its bodies as JSON */
    boolean readsJson() {
        return rule.mode() == IdempotencyFingerprint.JSON;
    }

    /** @return whether the fingerprint reads the body (all of it, or some of its members) */
    boolean readsBody() {
        return rule.mode() != IdempotencyFingerprint.NONE;
    }

    /** @return whether the fingerprint covers all of the body (in whichever form) */
    boolean coversWholeBody() {
        return rule.mode() != IdempotencyFingerprint.NONE && rule.members().isEmpty();
    }

    /** @return what a request must keep for a retry to replay, in words for the 422 answer */
    String covered() {
        if (rule.mode() == IdempotencyFingerprint.NONE) {
            return "method, path or query";
        }
        if (!rule.members().isEmpty()) {
            return "the body's " + rule.members().stream().map(BodyPointer::text).collect(Collectors.joining(", "))
                    + ", method, path or query";
        }
        return "body, method, path or query";
    }

    /**
     * @param method the HTTP method
     * @param rawPath the path as sent
     * @param rawQuery the query as sent, or {@code null}
     * @param body the buffered body
     * @param contentType the request's {@code Content-Type}, or {@code null}
     * @param json the body as JSON, parsed when asked for (only by the JSON mode)
     * @return the fingerprint, or {@code null} when the body must be refused: no JSON on an
     *     endpoint that consumes JSON only
     */
    String of(String method, String rawPath, String rawQuery, RequestBody body, String contentType,
            JsonBodies.Parsed json) {
        if (rule.mode() == IdempotencyFingerprint.NONE) {
            return RequestFingerprint.withoutBody(method, rawPath, rawQuery);
        }
        String ofBody = ofBody(method, rawPath, rawQuery, body, contentType, json);
        List<String> charsets = body.length() == 0 ? List.of() : HeaderParameters.ofMediaType(contentType, "charset");
        // The same bytes in another charset are another text to the method. UTF-8 (declared or
        // not: JSON's only one) keeps the fingerprint it had before charsets counted.
        if (ofBody == null || charsets.isEmpty() || (charsets.size() == 1 && utf8(charsets.get(0)))) {
            return ofBody;
        }
        return RequestFingerprint.inCharsets(ofBody, charsets);
    }

    private static boolean utf8(String charset) {
        return charset.equalsIgnoreCase("utf-8") || charset.equalsIgnoreCase("utf8");
    }

    private String ofBody(String method, String rawPath, String rawQuery, RequestBody body, String contentType,
            JsonBodies.Parsed json) {
        if (body.length() > 0) {
            switch (rule.mode()) {
                case JSON -> {
                    JsonValue document = json.value();
                    if (document != null) {
                        return rule.members().isEmpty()
                                ? RequestFingerprint.ofJson(method, rawPath, rawQuery, document)
                                : RequestFingerprint.ofJsonMembers(method, rawPath, rawQuery, document, rule.members());
                    }
                    if (rule.jsonOnly()) {
                        return null;
                    }
                }
                case MULTIPART -> {
                    List<MultipartBodies.Part> parts = MultipartBodies.split(contentType, body.bytes(), body.length());
                    if (parts != null) {
                        return RequestFingerprint.ofParts(method, rawPath, rawQuery, body.bytes(), parts);
                    }
                }
                default -> {
                    // BODY: below
                }
            }
        }
        return RequestFingerprint.of(method, rawPath, rawQuery, body.bytes(), body.length());
    }
}
