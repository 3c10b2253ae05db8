package dev.idempotency.jaxrs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Tag;

/**
 * Fuzzes the request fingerprint ({@link RequestFingerprint} over {@link Hashing}) together with
 * the body buffer that feeds it ({@link RequestBody}). Checked, for any request and any second
 * request close to it:
 * <ul>
 *   <li>a body read from a stream that hands it over in any chunking, with a true, missing or lying
 *       Content-Length, is the same bytes, so the same fingerprint, as the body in one piece; or,
 *       exactly when the declared or the actual length exceeds the limit, {@code TooLargeException};
 *       nothing else is thrown;</li>
 *   <li>only the first {@code bodyLength} bytes of the buffer count;</li>
 *   <li>two requests have the same fingerprint exactly when method, path, query (none and empty
 *       differ) and body are the same: any difference, down to one body byte, changes it;</li>
 *   <li>a fingerprint is 43 characters of base64url.</li>
 * </ul>
 * Headers such as {@code Content-Type} are not part of the fingerprint (README: method, path, query
 * and the whole body), so they are not varied here.
 */
@Tag("fuzz")
class RequestFingerprintFuzzTest {

    /** One request as the fingerprint sees it. */
    private record Request(String method, String path, String query, byte[] body) {

        String fingerprint() {
            return fingerprint(body, body.length);
        }

        /** With the body taken from a buffer, as the filter does. */
        String fingerprint(byte[] buffer, int length) {
            return RequestFingerprint.of(method, path, query, buffer, length);
        }

        /** Text fields compare as the UTF-8 the fingerprint hashes them as. */
        boolean sameAs(Request other) {
            return utf8(method).equals(utf8(other.method)) && utf8(path).equals(utf8(other.path))
                    && utf8(query).equals(utf8(other.query)) && Arrays.equals(body, other.body);
        }

        private static String utf8(String text) {
            return text == null ? "none" : Arrays.toString(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    @FuzzTest(maxDuration = "15s")
    void theFingerprintIsTheWholeRequestAndOnlyIt(FuzzedDataProvider data) throws IOException {
        Request request = new Request(data.consumeString(8), data.consumeString(64), query(data),
                repeated(data.consumeBytes(512), data.consumeInt(1, 40)));
        int limit = data.consumeInt(0, request.body().length + 16);
        long declared = switch (data.consumeInt(0, 2)) {
            case 0 -> -1;
            case 1 -> request.body().length;
            default -> data.consumeLong(0, 2L * limit + 16);
        };
        int[] chunks = data.consumeInts(8);
        Request other = nearby(request, data);

        String fingerprint = request.fingerprint();
        assertThat(fingerprint).hasSize(43).matches("[A-Za-z0-9_-]+");

        RequestBody read;
        try {
            read = RequestBody.read(new ChunkedStream(request.body(), chunks), declared, limit);
        } catch (RequestBody.TooLargeException e) {
            read = null;
        }
        boolean tooLarge = declared > limit || request.body().length > limit;
        assertThat(read == null).as("TooLargeException exactly when over the limit").isEqualTo(tooLarge);
        if (read != null) {
            assertThat(Arrays.copyOf(read.bytes(), read.length())).isEqualTo(request.body());
            assertThat(request.fingerprint(read.bytes(), read.length())).as("read in chunks, hashed from the buffer")
                    .isEqualTo(fingerprint);
        }
        byte[] slack = Arrays.copyOf(request.body(), request.body().length + 1 + chunks.length);
        slack[request.body().length] = 1;
        assertThat(request.fingerprint(slack, request.body().length)).as("bytes past bodyLength do not count")
                .isEqualTo(fingerprint);

        assertThat(other.fingerprint().equals(fingerprint)).as("same fingerprint exactly for the same request")
                .isEqualTo(other.sameAs(request));
    }

    /** No query, an empty one, or any. */
    private static String query(FuzzedDataProvider data) {
        return data.consumeBoolean() ? null : data.consumeString(64);
    }

    /** A body of a few fuzzed bytes can still be long enough to grow the buffer several times. */
    private static byte[] repeated(byte[] bytes, int times) {
        byte[] body = new byte[bytes.length * times];
        for (int i = 0; i < times; i++) {
            System.arraycopy(bytes, 0, body, i * bytes.length, bytes.length);
        }
        return body;
    }

    /**
     * The same request, one with a single field changed (perhaps to an equal value), or one with
     * the same characters split differently between two adjacent fields.
     */
    private static Request nearby(Request request, FuzzedDataProvider data) {
        byte[] body = request.body().clone();
        return switch (data.consumeInt(0, 6)) {
            case 0 -> new Request(data.consumeString(8), request.path(), request.query(), body);
            case 1 -> new Request(request.method(), data.consumeString(64), request.query(), body);
            case 2 -> new Request(request.method(), request.path(), query(data), body);
            case 3 -> {
                if (body.length > 0) {
                    // never the same byte: XOR with 1 to 255
                    body[data.consumeInt(0, body.length - 1)] ^= (byte) data.consumeInt(1, 255);
                }
                yield new Request(request.method(), request.path(), request.query(), body);
            }
            case 4 -> new Request(request.method(), request.path(), request.query(),
                    Arrays.copyOf(body, data.consumeInt(0, body.length + 2)));
            case 5 -> shiftedBoundary(request, data);
            default -> new Request(request.method(), request.path(), request.query(), body);
        };
    }

    /** Method|path, path|query ("/a?b" or "/a" with "b") or the last text field|body split elsewhere. */
    private static Request shiftedBoundary(Request request, FuzzedDataProvider data) {
        String method = request.method();
        String path = request.path();
        String query = request.query();
        switch (data.consumeInt(0, 2)) {
            case 0 -> {
                String joined = method + path;
                int cut = joined.offsetByCodePoints(0, data.consumeInt(0, joined.codePointCount(0, joined.length())));
                return new Request(joined.substring(0, cut), joined.substring(cut), query, request.body());
            }
            case 1 -> {
                if (query != null) {
                    return new Request(method, path + "?" + query, null, request.body());
                }
                int mark = path.indexOf('?');
                return mark < 0 ? request
                        : new Request(method, path.substring(0, mark), path.substring(mark + 1), request.body());
            }
            default -> {
                String last = query != null ? query : path;
                int cut = last.offsetByCodePoints(0, data.consumeInt(0, last.codePointCount(0, last.length())));
                byte[] moved = last.substring(cut).getBytes(StandardCharsets.UTF_8);
                byte[] body = Arrays.copyOf(moved, moved.length + request.body().length);
                System.arraycopy(request.body(), 0, body, moved.length, request.body().length);
                return query != null ? new Request(method, path, last.substring(0, cut), body)
                        : new Request(method, last.substring(0, cut), null, body);
            }
        }
    }

    /** Hands the bytes over in the given chunk sizes (cycled), as a network stream may. */
    private static final class ChunkedStream extends InputStream {
        private final byte[] bytes;
        private final int[] chunks;
        private int position;
        private int reads;

        ChunkedStream(byte[] bytes, int[] chunks) {
            this.bytes = bytes;
            this.chunks = chunks;
        }

        @Override
        public int read() {
            return position < bytes.length ? bytes[position++] & 0xFF : -1;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) {
            Objects.checkFromIndexSize(offset, length, buffer.length);
            if (length == 0) {
                return 0;
            }
            if (position == bytes.length) {
                return -1;
            }
            int chunk = chunks.length == 0 ? length : 1 + Math.floorMod(chunks[reads++ % chunks.length], 4096);
            int n = Math.min(Math.min(length, chunk), bytes.length - position);
            System.arraycopy(bytes, position, buffer, offset, n);
            position += n;
            return n;
        }
    }
}
