package dev.idempotency.jaxrs.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Splits a {@code multipart/*} body (RFC 2046, section 5.1.1) into its parts, so that the
 * fingerprint can cover each part's headers and content without the boundary, which clients
 * choose at random for every request. The preamble and the epilogue carry no meaning and are
 * left out. Only what is needed to find the parts is checked; a body that cannot be split is no
 * multipart body here, and the server's own parser decides whether it is one.
 */
final class MultipartBodies {

    private static final int MAX_BOUNDARY = 70;

    private MultipartBodies() {
    }

    /**
     * One part: its header fields (names in lower case, values trimmed, in order) and where its
     * content lies in the body.
     *
     * @param headers name, value, name, value, ...
     * @param start the content's first byte
     * @param end the byte after the content
     */
    record Part(List<String> headers, int start, int end) {
    }

    /**
     * @param contentType the request's {@code Content-Type}, or {@code null}
     * @param body the buffered body
     * @param length its length
     * @return the parts, or {@code null} when the body is no multipart body with the boundary the
     *     content type names
     */
    static List<Part> split(String contentType, byte[] body, int length) {
        String boundary = boundary(contentType);
        if (boundary == null) {
            return null;
        }
        byte[] dashBoundary = ("--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
        int position = firstDelimiter(body, length, dashBoundary);
        if (position < 0) {
            return null;
        }
        List<Part> parts = new ArrayList<>();
        while (true) {
            position += dashBoundary.length;
            if (startsWith(body, length, position, "--")) {
                return parts;
            }
            while (position < length && (body[position] == ' ' || body[position] == '\t')) {
                position++; // transport padding
            }
            if (!startsWith(body, length, position, "\r\n")) {
                return null;
            }
            int start = position + 2;
            int next = indexOf(body, length, start, dashBoundary, true);
            if (next < 0) {
                return null; // no close delimiter: truncated
            }
            Part part = part(body, start, next - 2);
            if (part == null) {
                return null;
            }
            parts.add(part);
            position = next;
        }
    }

    /** A part: header lines up to an empty line, then the content; no headers when it starts with the empty line. */
    private static Part part(byte[] body, int start, int end) {
        List<String> headers = new ArrayList<>();
        // the last field's value while folded lines may still continue it: appended to, never copied
        // again (copying it for each folded line cost the square of their count)
        StringBuilder value = null;
        int line = start;
        while (true) {
            if (line == end) {
                return new Part(finished(headers, value), end, end); // no empty line: the part has no content
            }
            int lineEnd = indexOf(body, end, line, new byte[] {'\r', '\n'}, false);
            if (lineEnd < 0) {
                return null; // headers without the empty line that ends them
            }
            if (lineEnd == line) {
                return new Part(finished(headers, value), lineEnd + 2, end);
            }
            String field = new String(body, line, lineEnd - line, StandardCharsets.ISO_8859_1);
            if ((field.charAt(0) == ' ' || field.charAt(0) == '\t') && value != null) {
                // an obsolete folded line continues the previous field's value, after one space
                String more = field.strip();
                if (!more.isEmpty()) {
                    (value.isEmpty() ? value : value.append(' ')).append(more);
                }
            } else {
                int colon = field.indexOf(':');
                if (colon <= 0) {
                    return null;
                }
                addValue(headers, value);
                headers.add(field.substring(0, colon).strip().toLowerCase(Locale.ROOT));
                value = new StringBuilder(field.substring(colon + 1).strip());
            }
            line = lineEnd + 2;
        }
    }

    /** Adds the last field's value after its name (each field's once: at the next field, or at the end). */
    private static void addValue(List<String> headers, StringBuilder value) {
        if (value != null) {
            headers.add(value.toString());
        }
    }

    /** @return the part's header names and values, the last field's value added */
    private static List<String> finished(List<String> headers, StringBuilder value) {
        addValue(headers, value);
        return List.copyOf(headers);
    }

    /**
     * @return the {@code boundary} parameter of a {@code multipart/*} media type, or {@code null}:
     *     also when it is named twice, since the server's parser may read the parts under the
     *     other one (its parameters are a map, where the last wins), and the body then counts as
     *     bytes
     */
    static String boundary(String contentType) {
        if (!HeaderParameters.mediaType(contentType).startsWith("multipart/")) {
            return null;
        }
        List<String> boundaries = HeaderParameters.ofMediaType(contentType, "boundary");
        if (boundaries.size() != 1) {
            return null;
        }
        String boundary = boundaries.get(0);
        return boundary.isEmpty() || boundary.length() > MAX_BOUNDARY ? null : boundary;
    }

    /** The first dash-boundary at the start of the body or of a line. */
    private static int firstDelimiter(byte[] body, int length, byte[] dashBoundary) {
        if (startsWith(body, length, 0, dashBoundary)) {
            return 0;
        }
        return indexOf(body, length, 0, dashBoundary, true);
    }

    /**
     * @param afterLineBreak whether the match must follow a CRLF (a delimiter), which is then
     *     not part of the index returned
     */
    private static int indexOf(byte[] body, int length, int from, byte[] needle, boolean afterLineBreak) {
        for (int i = from; i + needle.length <= length; i++) {
            // the line break first: a body of dashes must not cost a boundary's length per byte
            if ((!afterLineBreak || (i >= from + 2 && body[i - 2] == '\r' && body[i - 1] == '\n'))
                    && startsWith(body, length, i, needle)) {
                return i;
            }
        }
        return -1;
    }

    private static boolean startsWith(byte[] body, int length, int at, String prefix) {
        return startsWith(body, length, at, prefix.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static boolean startsWith(byte[] body, int length, int at, byte[] prefix) {
        if (at < 0 || at + prefix.length > length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (body[at + i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }
}
