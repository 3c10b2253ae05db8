package dev.idempotency.spi;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The outcome replayed to retries: a status, the headers worth replaying and the exact body
 * bytes. Immutable; the body array is copied in and out.
 *
 * <p>When the body was larger than the configured cap it is not stored
 * ({@link #bodyStored()} is {@code false}); a retry then gets a documented problem answer rather
 * than a second execution.
 */
public final class StoredOutcome {

    private final int status;
    private final Map<String, List<String>> headers;
    private final byte[] body;
    private final boolean bodyStored;

    private StoredOutcome(int status, Map<String, List<String>> headers, byte[] body, boolean bodyStored) {
        if (status < 100 || status > 999) {
            throw new IllegalArgumentException("status " + status + " is not an HTTP status");
        }
        this.status = status;
        Map<String, List<String>> copy = new LinkedHashMap<>();
        Objects.requireNonNull(headers, "headers").forEach((name, values) -> copy.put(name, List.copyOf(values)));
        this.headers = Collections.unmodifiableMap(copy);
        this.body = body.clone();
        this.bodyStored = bodyStored;
    }

    /**
     * @param status the HTTP status
     * @param headers the headers to replay, in order (names as sent)
     * @param body the exact body bytes, empty for none
     * @return a complete outcome
     */
    public static StoredOutcome of(int status, Map<String, List<String>> headers, byte[] body) {
        return new StoredOutcome(status, headers, Objects.requireNonNull(body, "body"), true);
    }

    /**
     * @param status the HTTP status
     * @param headers the headers to replay
     * @return an outcome whose body was too large to keep
     */
    public static StoredOutcome withoutBody(int status, Map<String, List<String>> headers) {
        return new StoredOutcome(status, headers, new byte[0], false);
    }

    /** @return the HTTP status */
    public int status() {
        return status;
    }

    /** @return the headers to replay, unmodifiable, in their original order */
    public Map<String, List<String>> headers() {
        return headers;
    }

    /** @return a copy of the body bytes (empty when none, or when not stored) */
    public byte[] body() {
        return body.clone();
    }

    /**
     * Copies the body into a buffer without the copy {@link #body()} makes: for a store that
     * encodes the whole outcome into one array of its own.
     *
     * @param target where the body goes, at its position, which moves on by {@link #bodyLength()}
     * @return the target
     * @throws java.nio.BufferOverflowException when fewer than {@link #bodyLength()} bytes remain
     * @throws java.nio.ReadOnlyBufferException when the target is read-only
     */
    public ByteBuffer putBodyInto(ByteBuffer target) {
        return target.put(body);
    }

    /** @return the body length without copying it */
    public int bodyLength() {
        return body.length;
    }

    /** @return whether the body was kept; {@code false} when it exceeded the cap */
    public boolean bodyStored() {
        return bodyStored;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof StoredOutcome that
                && status == that.status
                && bodyStored == that.bodyStored
                && headers.equals(that.headers)
                && Arrays.equals(body, that.body);
    }

    @Override
    public int hashCode() {
        return 31 * Objects.hash(status, headers, bodyStored) + Arrays.hashCode(body);
    }

    @Override
    public String toString() {
        return "StoredOutcome[status=" + status + ", headers=" + headers.keySet() + ", body=" + body.length
                + " bytes" + (bodyStored ? "" : " (not stored)") + "]";
    }
}
