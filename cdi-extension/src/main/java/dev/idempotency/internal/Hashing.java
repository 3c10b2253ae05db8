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

    /**
     * Cloned for each hasher: a provider look-up ({@code getInstance}) on every request cost more
     * than the hashing of a small request. Never updated itself, so any thread may clone it.
     */
    private static final MessageDigest PROTOTYPE = newDigest();

    private final MessageDigest digest;
    /** The length prefix, hashed in one update rather than byte by byte. */
    private final byte[] lengthPrefix = new byte[Long.BYTES];

    private Hashing(MessageDigest digest) {
        this.digest = digest;
    }

    /** @return a fresh hasher; not thread-safe, use one per computation */
    public static Hashing sha256() {
        try {
            return new Hashing((MessageDigest) PROTOTYPE.clone());
        } catch (CloneNotSupportedException e) {
            return new Hashing(newDigest()); // a provider whose digest cannot be cloned
        }
    }

    private static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /**
     * @param field a text field, hashed as UTF-8 with its length; text with a surrogate without its
     *     pair (a principal name or a tenant can be any Java text), for which UTF-8 has no bytes, as
     *     {@value #NOT_UTF8} and then its UTF-16 code units: no UTF-8 has that byte, so it never
     *     hashes as other text (Java's encoder writes {@code ?} for it)
     * @return this
     */
    public Hashing add(String field) {
        return add(wellFormed(field) ? field.getBytes(StandardCharsets.UTF_8) : notUtf8(field));
    }

    /** Starts the bytes of text UTF-8 cannot encode: a byte no UTF-8 has. */
    static final int NOT_UTF8 = 0xFF;

    private static boolean wellFormed(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isSurrogate(c)) {
                if (!Character.isHighSurrogate(c) || i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
                    return false;
                }
                i++;
            }
        }
        return true;
    }

    /** The marker, then each UTF-16 code unit big-endian, written by hand: Java's UTF-16 encoder replaces lone surrogates too. */
    private static byte[] notUtf8(String text) {
        byte[] bytes = new byte[1 + 2 * text.length()];
        bytes[0] = (byte) NOT_UTF8;
        for (int i = 0; i < text.length(); i++) {
            bytes[1 + 2 * i] = (byte) (text.charAt(i) >>> 8);
            bytes[2 + 2 * i] = (byte) text.charAt(i);
        }
        return bytes;
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
        for (int i = 0; i < Long.BYTES; i++) {
            lengthPrefix[i] = (byte) (n >>> (56 - 8 * i));
        }
        digest.update(lengthPrefix);
        digest.update(field, offset, length);
        return this;
    }

    /** @return the base64url digest */
    public String finish() {
        return BASE64URL.encodeToString(digest.digest());
    }
}
