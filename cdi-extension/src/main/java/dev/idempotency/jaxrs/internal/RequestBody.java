package dev.idempotency.jaxrs.internal;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;

/**
 * A request body read whole, up to a limit, so that it can be fingerprinted and then handed to
 * the resource method intact.
 */
public final class RequestBody {

    private final byte[] bytes;
    private final int length;

    private RequestBody(byte[] bytes, int length) {
        this.bytes = bytes;
        this.length = length;
    }

    /** Thrown when the body is larger than the limit. */
    public static final class TooLargeException extends Exception {
        private static final long serialVersionUID = 1L;

        TooLargeException() {
            super(null, null, false, false);
        }
    }

    /**
     * Reads a Content-Length header as a long: JAX-RS's {@code getLength()} is an int and fails
     * on a declared length over 2 GiB, which must get a 413 like any body over the limit.
     *
     * @param header the header's value, or null
     * @return the declared length; {@link Long#MAX_VALUE} for digits beyond a long; -1 when
     *     absent or not a number (the HTTP server refuses those first)
     */
    public static long declaredLength(String header) {
        String digits = header == null ? "" : header.trim();
        if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException beyondLong) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * @param in the entity stream (may be {@code null} for none)
     * @param declaredLength the Content-Length, or -1
     * @param limit the largest body accepted
     * @return the whole body
     * @throws TooLargeException when the body (declared or actual) exceeds the limit
     * @throws IOException when reading fails
     */
    public static RequestBody read(InputStream in, long declaredLength, int limit) throws IOException, TooLargeException {
        if (declaredLength > limit) {
            throw new TooLargeException();
        }
        if (in == null) {
            return new RequestBody(new byte[0], 0);
        }
        // Never trust a declared length for the first allocation; declared + 1 reads EOF without a copy.
        long first = declaredLength >= 0 ? declaredLength + 1 : 8192;
        byte[] buffer = new byte[(int) Math.min(Math.min(first, 64 * 1024), (long) limit + 1)];
        int length = 0;
        while (true) {
            if (length == buffer.length) {
                if (length > limit) {
                    throw new TooLargeException();
                }
                buffer = Arrays.copyOf(buffer, (int) Math.min((long) buffer.length * 2, (long) limit + 1));
            }
            int n = in.read(buffer, length, buffer.length - length);
            if (n < 0) {
                break;
            }
            length += n;
        }
        if (length > limit) {
            throw new TooLargeException();
        }
        return new RequestBody(buffer, length);
    }

    /**
     * A compressed body may always decode to this many bytes, whatever its size (bulk JSON
     * compresses very well); beyond it, to the expansion {@link #decoded} is given.
     */
    static final int SMALLEST_DECODED_BOUND = 4 * 1024 * 1024;

    /**
     * The body as what it encodes, for the fingerprint and the key's JSON: a body sent with
     * {@code Content-Encoding: gzip} (or {@code x-gzip}, or zlib {@code deflate}; {@code identity}
     * entries aside; raw deflate too) is decoded, so that the same content compressed again (another gzip header
     * time, another compressor) is the same request. The method still gets the bytes as sent. Any
     * other coding (none, several, one this library does not decode), an empty body, and a body
     * that does not decode as its header says (an application's filter decoded it already and left
     * the header; a corrupt one, which the application's own decoder refuses) count as
     * the bytes sent, as before this library decoded anything.
     *
     * @param contentEncoding the request's {@code Content-Encoding}, or {@code null}
     * @param limit the largest decoded body accepted (a small body may decode to a huge one)
     * @param expansion how many times its size a compressed body may decode to beyond
     *     {@value #SMALLEST_DECODED_BOUND} bytes; 0: up to the limit
     * @return the decoded body, or this one
     * @throws TooLargeException when it decodes to more than the limit, or to more than
     *     {@code expansion} times its size and more than {@value #SMALLEST_DECODED_BOUND} bytes
     */
    public RequestBody decoded(String contentEncoding, int limit, int expansion) throws TooLargeException {
        if (contentEncoding == null || length == 0) {
            return this;
        }
        List<String> codings = Arrays.stream(contentEncoding.split(",")).map(coding -> coding.trim().toLowerCase(Locale.ROOT))
                .filter(coding -> !coding.isEmpty() && !coding.equals("identity")).toList();
        if (codings.size() != 1) {
            return this;
        }
        ByteArrayInputStream sent = new ByteArrayInputStream(bytes, 0, length);
        // a few kilobytes may decode to the whole limit, all of it then parsed and hashed before
        // anything is claimed: bounded as zip-bomb guards bound it
        int bound = expansion == 0 ? limit
                : (int) Math.min(limit, Math.max(SMALLEST_DECODED_BOUND, (long) length * expansion));
        try {
            return switch (codings.get(0)) {
                case "gzip", "x-gzip" -> read(new GZIPInputStream(sent), -1, bound);
                // zlib, or raw deflate (no zlib header), which Jersey's decoder takes too
                case "deflate" -> inflated(sent, bound);
                default -> this;
            };
        } catch (IOException doesNotDecode) {
            return this;
        }
    }

    private RequestBody inflated(ByteArrayInputStream sent, int bound) throws IOException, TooLargeException {
        boolean zlib = zlibHeader();
        Inflater inflater = new Inflater(!zlib);
        try {
            RequestBody inflated = read(new InflaterInputStream(sent, inflater), -1, bound);
            // Raw deflate has no check: bytes that are no deflate stream may still inflate to a few
            // bytes and leave the rest unread, which then would not count. Raw deflate only if all of
            // the body is; zlib has its checksum (bytes after it are ignored, as Jersey's decoder does),
            // and only a stream that reached it counts: one whose header asks for a preset dictionary
            // stops at once, read as empty, which every such body would have been.
            boolean decoded = zlib ? inflater.finished()
                    : inflater.finished() && inflater.getRemaining() == 0 && sent.available() == 0;
            return decoded ? inflated : this;
        } finally {
            inflater.end(); // a stream given its inflater leaves it to the giver
        }
    }

    /** @return whether the body starts with a zlib header (RFC 1950: deflate, its check bits) */
    private boolean zlibHeader() {
        return length >= 2 && (bytes[0] & 0x0F) == 8 && (((bytes[0] & 0xFF) << 8) | (bytes[1] & 0xFF)) % 31 == 0;
    }

    /**
     * @param failure what reading the entity stream threw
     * @return whether the server stopped the read at its own body limit (Undertow's
     *     {@code RequestTooBigException}, WildFly's {@code max-post-size}), in the failure or its causes
     */
    public static boolean refusedAsTooLarge(Throwable failure) {
        Throwable cause = failure;
        for (int depth = 0; cause != null && depth < 16; depth++) { // a chain may come back on itself
            if (cause.getClass().getSimpleName().equals("RequestTooBigException")) {
                return true;
            }
            cause = cause.getCause();
        }
        return false;
    }

    /** @return the backing array; only the first {@link #length()} bytes are the body */
    public byte[] bytes() {
        return bytes;
    }

    /** @return the body length */
    public int length() {
        return length;
    }
}
