package dev.idempotency.jaxrs.internal;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The parameters of a structured-field Item (RFC 9651, section 3.1.2): {@code ;key} or {@code
 * ;key=value}, each value a bare item (an integer, a decimal, a string, a token, a byte sequence, a
 * boolean, a date or a display string). Only checked: whoever reads an Item takes its value and
 * ignores the parameters it does not know.
 */
final class SfParameters {

    private SfParameters() {
    }

    /**
     * @param value a header value, without its optional whitespace around it
     * @param from where its parameters start, just after the Item's bare item
     * @return whether the rest of the value is parameters and nothing else
     */
    static boolean valid(String value, int from) {
        int i = from;
        while (i < value.length()) {
            if (value.charAt(i) != ';') {
                return false;
            }
            i++;
            while (i < value.length() && value.charAt(i) == ' ') {
                i++;
            }
            i = key(value, i);
            if (i < 0) {
                return false;
            }
            if (i < value.length() && value.charAt(i) == '=') {
                i = bareItem(value, i + 1);
                if (i < 0) {
                    return false;
                }
            }
        }
        return true;
    }

    /** @return the index after the key that starts at {@code i}, or -1 if none does */
    private static int key(String value, int i) {
        if (i >= value.length() || !(lowerAlpha(value.charAt(i)) || value.charAt(i) == '*')) {
            return -1;
        }
        int end = i + 1;
        while (end < value.length() && keyChar(value.charAt(end))) {
            end++;
        }
        return end;
    }

    /** @return the index after the bare item that starts at {@code i}, or -1 if none does */
    private static int bareItem(String value, int i) {
        if (i >= value.length()) {
            return -1;
        }
        char c = value.charAt(i);
        if (c == '-' || digit(c)) {
            return number(value, i);
        }
        if (c == '"') {
            return string(value, i + 1);
        }
        if (c == ':') {
            return byteSequence(value, i + 1);
        }
        if (c == '?') {
            return i + 1 < value.length() && (value.charAt(i + 1) == '0' || value.charAt(i + 1) == '1') ? i + 2 : -1;
        }
        if (c == '@') {
            return i + 1 < value.length() ? integerOnly(value, i + 1) : -1;
        }
        if (c == '%') {
            return i + 1 < value.length() && value.charAt(i + 1) == '"' ? displayString(value, i + 2) : -1;
        }
        if (alpha(c) || c == '*') {
            int end = i + 1;
            while (end < value.length() && (tchar(value.charAt(end)) || value.charAt(end) == ':' || value.charAt(end) == '/')) {
                end++;
            }
            return end;
        }
        return -1;
    }

    /** An integer (at most 15 digits) or a decimal (at most 12 digits, a dot, 1 to 3 digits). */
    private static int number(String value, int i) {
        int start = value.charAt(i) == '-' ? i + 1 : i;
        int end = start;
        while (end < value.length() && digit(value.charAt(end))) {
            end++;
        }
        int whole = end - start;
        if (whole == 0) {
            return -1;
        }
        if (end < value.length() && value.charAt(end) == '.') {
            int fraction = end + 1;
            int fractionEnd = fraction;
            while (fractionEnd < value.length() && digit(value.charAt(fractionEnd))) {
                fractionEnd++;
            }
            int digits = fractionEnd - fraction;
            return whole <= 12 && digits >= 1 && digits <= 3 ? fractionEnd : -1;
        }
        return whole <= 15 ? end : -1;
    }

    private static int integerOnly(String value, int i) {
        int end = number(value, i);
        return end < 0 || value.substring(i, end).indexOf('.') >= 0 ? -1 : end;
    }

    /** @return the index after the closing quote of a string whose content starts at {@code i} */
    private static int string(String value, int i) {
        int at = i;
        while (at < value.length()) {
            char c = value.charAt(at);
            if (c == '\\') {
                if (at + 1 >= value.length() || (value.charAt(at + 1) != '"' && value.charAt(at + 1) != '\\')) {
                    return -1;
                }
                at += 2;
            } else if (c == '"') {
                return at + 1;
            } else if (c < 0x20 || c > 0x7E) {
                return -1;
            } else {
                at++;
            }
        }
        return -1;
    }

    /**
     * Base64 between colons: its characters, then only padding, which must decode (missing padding
     * is accepted, as RFC 9651 advises parsers).
     */
    private static int byteSequence(String value, int i) {
        int at = i;
        while (at < value.length() && (alpha(value.charAt(at)) || digit(value.charAt(at)) || value.charAt(at) == '+'
                || value.charAt(at) == '/')) {
            at++;
        }
        while (at < value.length() && value.charAt(at) == '=') {
            at++;
        }
        if (at >= value.length() || value.charAt(at) != ':') {
            return -1;
        }
        try {
            Base64.getDecoder().decode(value.substring(i, at));
        } catch (IllegalArgumentException notBase64) {
            return -1;
        }
        return at + 1;
    }

    /** Printable ASCII with lower-case percent-encoded bytes, which must decode as UTF-8. */
    private static int displayString(String value, int i) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int at = i;
        while (at < value.length()) {
            char c = value.charAt(at);
            if (c == '"') {
                return utf8(bytes.toByteArray()) ? at + 1 : -1;
            }
            if (c == '%') {
                if (at + 2 >= value.length() || !lowerHex(value.charAt(at + 1)) || !lowerHex(value.charAt(at + 2))) {
                    return -1;
                }
                bytes.write(Integer.parseInt(value, at + 1, at + 3, 16));
                at += 3;
            } else if (c < 0x20 || c > 0x7E) {
                return -1;
            } else {
                bytes.write(c);
                at++;
            }
        }
        return -1;
    }

    private static boolean utf8(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException notUtf8) {
            return false;
        }
    }

    private static boolean keyChar(char c) {
        return lowerAlpha(c) || digit(c) || c == '_' || c == '-' || c == '.' || c == '*';
    }

    /** RFC 9110's tchar. */
    private static boolean tchar(char c) {
        return alpha(c) || digit(c) || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }

    private static boolean lowerAlpha(char c) {
        return c >= 'a' && c <= 'z';
    }

    private static boolean alpha(char c) {
        return lowerAlpha(c) || c >= 'A' && c <= 'Z';
    }

    private static boolean digit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean lowerHex(char c) {
        return digit(c) || c >= 'a' && c <= 'f';
    }
}
