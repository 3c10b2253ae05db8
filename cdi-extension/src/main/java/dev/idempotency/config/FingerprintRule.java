package dev.idempotency.config;

import java.util.List;

import dev.idempotency.IdempotencyFingerprint;

/**
 * What an HTTP endpoint's request fingerprint covers, resolved at deployment.
 *
 * @param mode what of the body counts
 * @param members with {@code JSON}: the only parts of the body that count, sorted by their text and
 *     without duplicates, so that reordering them in the annotation changes no fingerprint; empty:
 *     the whole body
 * @param jsonOnly whether the endpoint consumes JSON media types only ({@code @Consumes}): with
 *     {@code JSON}, a body that is not JSON is then refused ({@code 400}), the method could not read it
 */
public record FingerprintRule(IdempotencyFingerprint mode, List<BodyPointer> members, boolean jsonOnly) {

    /** The whole body, byte for byte: the default, and what a non-HTTP method's policy holds. */
    public static final FingerprintRule DEFAULT = new FingerprintRule(IdempotencyFingerprint.BODY, List.of(), false);

    public FingerprintRule {
        members = List.copyOf(members);
    }
}
