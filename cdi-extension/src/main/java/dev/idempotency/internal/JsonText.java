package dev.idempotency.internal;

/** JSON text written by hand, where the library's canonical forms need each byte decided. */
public final class JsonText {

    private JsonText() {
    }

    /**
     * Writes a string as JSON text, as RFC 8785 (JCS) writes it: quoted; quotes, backslashes and
     * control characters escaped (the short escapes where JSON has them); a lone surrogate escaped.
     * Different strings never give the same text.
     *
     * @param text the string
     * @param out where its JSON text is appended
     */
    public static void quoted(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\f' -> out.append("\\f");
                case '\r' -> out.append("\\r");
                default -> {
                    if (c < 0x20) {
                        unicodeEscape(c, out);
                    } else {
                        i = appendEscapingLoneSurrogate(text, i, out);
                    }
                }
            }
        }
        out.append('"');
    }

    /**
     * Escapes the lone surrogates of JSON text (which can only stand inside its strings), which
     * UTF-8 has no bytes for: encoded as they are, each would become {@code ?}, and two different
     * strings one text.
     *
     * @param json JSON text
     * @return the same text, each lone surrogate written as a {@code \\uXXXX} escape
     */
    public static String loneSurrogatesEscaped(String json) {
        int i = 0;
        while (i < json.length() && !Character.isSurrogate(json.charAt(i))) {
            i++;
        }
        if (i == json.length()) {
            return json; // the usual case: nothing to copy
        }
        StringBuilder out = new StringBuilder(json.length() + 8).append(json, 0, i);
        for (; i < json.length(); i++) {
            i = appendEscapingLoneSurrogate(json, i, out);
        }
        return out.toString();
    }

    /**
     * Appends the character at {@code i}: a surrogate pair as it is, a lone surrogate escaped.
     *
     * @return the index of the last character appended ({@code i + 1} after a pair)
     */
    private static int appendEscapingLoneSurrogate(String text, int i, StringBuilder out) {
        char c = text.charAt(i);
        if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
            out.append(c).append(text.charAt(i + 1));
            return i + 1;
        }
        if (Character.isSurrogate(c)) {
            unicodeEscape(c, out);
        } else {
            out.append(c);
        }
        return i;
    }

    private static void unicodeEscape(char c, StringBuilder out) {
        String hex = Integer.toHexString(c);
        out.append("\\u").append("0".repeat(4 - hex.length())).append(hex);
    }
}
