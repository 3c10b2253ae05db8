package dev.idempotency.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An RFC 6901 JSON Pointer into a request body ({@code /data/object/id}), parsed once at
 * deployment into its reference tokens, unescaped ({@code ~1} is {@code /}, {@code ~0} is
 * {@code ~}).
 *
 * @param text the pointer as written
 * @param tokens its reference tokens, in order
 */
public record BodyPointer(String text, List<String> tokens) {

    public BodyPointer {
        tokens = List.copyOf(tokens);
    }

    /**
     * @param text a pointer as configured
     * @return the pointer, or empty when the text is not RFC 6901 or is {@code ""}: the whole
     *     document is no part of the body
     */
    public static Optional<BodyPointer> parse(String text) {
        if (text.isEmpty() || text.charAt(0) != '/') {
            return Optional.empty();
        }
        List<String> tokens = new ArrayList<>();
        StringBuilder token = new StringBuilder();
        for (int i = 1; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '/') {
                tokens.add(token.toString());
                token.setLength(0);
            } else if (c == '~') {
                char escaped = i + 1 < text.length() ? text.charAt(++i) : ' ';
                if (escaped == '0') {
                    token.append('~');
                } else if (escaped == '1') {
                    token.append('/');
                } else {
                    return Optional.empty();
                }
            } else {
                token.append(c);
            }
        }
        tokens.add(token.toString());
        return Optional.of(new BodyPointer(text, tokens));
    }

    @Override
    public String toString() {
        return text;
    }
}
