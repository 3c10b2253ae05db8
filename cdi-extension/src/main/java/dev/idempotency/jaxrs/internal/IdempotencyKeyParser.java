package dev.idempotency.jaxrs.internal;

import java.util.List;

/**
 * Reads an {@code Idempotency-Key} header: a structured-field Item whose value is a String (RFC 9651,
 * which obsoletes RFC 8941: {@code "abc"}), or a bare key. Keys are 1 to {@code maxLength}
 * characters of printable US-ASCII, not only spaces. A String may carry parameters ({@code
 * "abc";v=1}), as any Item may: they are checked against the grammar and ignored, the draft defining
 * none, so {@code "abc";v=1} and {@code "abc"} are one key. A bare key cannot hold a space, a
 * double quote, a backslash or a comma: a comma is how proxies join repeated headers, so a joined
 * value must not pass for one key; a bare key is taken whole ({@code abc;v=1} is that key), as
 * before parameters were read. Error texts never echo the key.
 */
public final class IdempotencyKeyParser {

    private final int maxLength;
    private final String header;

    /**
     * @param maxLength the longest key allowed, in characters
     */
    public IdempotencyKeyParser(int maxLength) {
        this(maxLength, "Idempotency-Key");
    }

    /**
     * @param maxLength the longest key allowed, in characters
     * @param header the header's name, as error texts give it
     */
    public IdempotencyKeyParser(int maxLength, String header) {
        this.maxLength = maxLength;
        this.header = header;
    }

    /** The outcome of parsing: a key or the reason it was refused. */
    public record Result(String key, String error) {
        static Result ok(String key) {
            return new Result(key, null);
        }

        static Result refused(String error) {
            return new Result(null, error);
        }

        /** @return whether the header held exactly one valid key */
        public boolean valid() {
            return key != null;
        }
    }

    /**
     * @param values every value of the header in the request (non-empty)
     * @return the key, or why it was refused
     */
    public Result parse(List<String> values) {
        if (values.size() > 1) {
            return Result.refused("the request has " + values.size() + " " + header + " headers; send exactly one");
        }
        return parse(values.get(0));
    }

    /**
     * @param raw one header value
     * @return the key, or why it was refused
     */
    public Result parse(String raw) {
        String value = raw == null ? "" : trimOws(raw);
        if (value.isEmpty()) {
            return Result.refused("the " + header + " header is empty");
        }
        return value.charAt(0) == '"' ? parseSfString(value) : parseBare(value);
    }

    private Result parseSfString(String value) {
        StringBuilder key = new StringBuilder(value.length());
        int i = 1;
        while (i < value.length()) {
            char c = value.charAt(i);
            if (c == '\\') {
                if (i + 1 >= value.length() || (value.charAt(i + 1) != '"' && value.charAt(i + 1) != '\\')) {
                    return Result.refused("the quoted " + header + " has an invalid escape; only \\\" and \\\\ are allowed");
                }
                key.append(value.charAt(i + 1));
                i += 2;
                continue;
            }
            if (c == '"') {
                if (i != value.length() - 1 && !SfParameters.valid(value, i + 1)) {
                    return Result.refused("the quoted " + header + " has characters after its closing quote that are"
                            + " no structured-field parameters (;name or ;name=value)");
                }
                return checked(key.toString());
            }
            if (c < 0x20 || c > 0x7E) {
                return Result.refused("the " + header + " must be printable US-ASCII");
            }
            key.append(c);
            i++;
        }
        return Result.refused("the quoted " + header + " has no closing quote");
    }

    private Result parseBare(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x21 || c > 0x7E) {
                return Result.refused(c == ' ' || c == '\t'
                        ? "the " + header + " has whitespace; quote it as an sf-string to send spaces"
                        : "the " + header + " must be printable US-ASCII");
            }
            if (c == '"' || c == '\\' || c == ',') {
                return Result.refused("the bare " + header + " has '" + c
                        + "'; send one key, quoted as an sf-string if it needs that character");
            }
        }
        return checked(value);
    }

    private Result checked(String key) {
        if (key.isEmpty()) {
            return Result.refused("the " + header + " is empty");
        }
        if (key.isBlank()) {
            // spaces only: what a client sends for a value it does not have, never a request's own key
            return Result.refused("the " + header + " is blank");
        }
        if (key.length() > maxLength) {
            return Result.refused("the " + header + " has " + key.length() + " characters; at most " + maxLength
                    + " are allowed");
        }
        return Result.ok(key);
    }

    private static String trimOws(String s) {
        int start = 0;
        int end = s.length();
        while (start < end && (s.charAt(start) == ' ' || s.charAt(start) == '\t')) {
            start++;
        }
        while (end > start && (s.charAt(end - 1) == ' ' || s.charAt(end - 1) == '\t')) {
            end--;
        }
        return s.substring(start, end);
    }
}
