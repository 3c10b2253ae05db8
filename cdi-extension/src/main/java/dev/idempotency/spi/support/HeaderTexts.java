package dev.idempotency.spi.support;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * An outcome's header names and values as UTF-8, in their order, each encoded once: for a store
 * that writes an outcome into one array of its exact size, first counting its bytes, then writing
 * them. Which length fields a format puts around the texts is the format's own.
 *
 * <pre>{@code
 * HeaderTexts texts = HeaderTexts.of(outcome.headers());
 * ByteBuffer out = ByteBuffer.allocate(fixed + texts.bytes() + 8 * texts.names() + 4 * texts.values()
 *         + outcome.bodyLength());
 * int next = 0;
 * for (List<String> values : outcome.headers().values()) {
 *     byte[] name = texts.text(next++);
 *     ... then values.size() times texts.text(next++)
 * }
 * }</pre>
 */
public final class HeaderTexts {

    private final byte[][] texts;
    private final int names;
    private final int bytes;

    private HeaderTexts(byte[][] texts, int names, int bytes) {
        this.texts = texts;
        this.names = names;
        this.bytes = bytes;
    }

    /**
     * @param headers the headers, in their order (a {@link dev.idempotency.spi.StoredOutcome}'s, which
     *     never changes; a map that changes meanwhile may fail with an index out of bounds)
     * @return every name followed by its values, as UTF-8
     */
    public static HeaderTexts of(Map<String, List<String>> headers) {
        int count = headers.size();
        for (List<String> values : headers.values()) {
            count += values.size();
        }
        byte[][] texts = new byte[count][];
        int next = 0;
        int bytes = 0;
        for (Map.Entry<String, List<String>> header : headers.entrySet()) {
            texts[next] = header.getKey().getBytes(StandardCharsets.UTF_8);
            bytes += texts[next++].length;
            for (String value : header.getValue()) {
                texts[next] = value.getBytes(StandardCharsets.UTF_8);
                bytes += texts[next++].length;
            }
        }
        return new HeaderTexts(texts, headers.size(), bytes);
    }

    /**
     * @param index in the headers' order: a name, then each of its values, then the next name
     * @return that text's UTF-8 bytes (the array itself: do not change it)
     */
    public byte[] text(int index) {
        return texts[index];
    }

    /** @return how many headers (names) */
    public int names() {
        return names;
    }

    /** @return how many values, of all headers together */
    public int values() {
        return texts.length - names;
    }

    /** @return the UTF-8 bytes of every name and value together, without any length field */
    public int bytes() {
        return bytes;
    }
}
