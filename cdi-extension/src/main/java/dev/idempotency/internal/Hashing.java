package dev.idempotency.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * SHA-256 with length-prefixed fields, so that no two different field lists hash alike
 * ({@code ("ab","c")} and {@code ("a","bc")} differ). Results are base64url without padding:
 * 43 characters.
 */
public final class Hashing {

    private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

    private final MessageDigest digest;

    private Hashing() {
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /** @return a fresh hasher; not thread-safe, use one per computation */
    public static Hashing sha256() {
        return new Hashing();
    }

    /**
     * @param field a text field, hashed as UTF-8 with its length
     * @return this
     */
    public Hashing add(String field) {
        return add(field.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * @param field a byte field, hashed with its length
     * @return this
     */
    public Hashing add(byte[] field) {
        return add(field, 0, field.length);
    }

    /**
     * @param field a byte field
     * @param offset where the field starts
     * @param length its length
     * @return this
     */
    public Hashing add(byte[] field, int offset, int length) {
        long n = length;
        for (int shift = 56; shift >= 0; shift -= 8) {
            digest.update((byte) (n >>> shift));
        }
        digest.update(field, offset, length);
        return this;
    }

    /** @return the base64url digest */
    public String finish() {
        return BASE64URL.encodeToString(digest.digest());
    }
}
