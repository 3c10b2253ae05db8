package dev.idempotency.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.spi.support.HeaderTexts;

/**
 * An outcome as the in-memory store keeps it for its ttl: one byte array instead of a map of
 * lists of strings. A completed record lives for minutes and every collection copies what is
 * alive, so its shape is what a collection pays for (a 2-header answer's map, lists and strings
 * took about 450 bytes; encoded they take about 60). Decoded at each read, which is a replay:
 * cheaper than the copying it saves.
 *
 * <p>Layout (big-endian): status (i16), whether the body is stored (i8), header count (i32), each
 * header its name (i32 length, UTF-8) and its value count (i32) then each value (i32 length,
 * UTF-8), then the body to the end. Never leaves this JVM, so it has no version.
 */
final class CompactOutcome {

    private CompactOutcome() {
    }

    /**
     * @param outcome what to keep
     * @return its bytes
     */
    static byte[] encode(StoredOutcome outcome) {
        Map<String, List<String>> headers = outcome.headers();
        HeaderTexts texts = HeaderTexts.of(headers);
        ByteBuffer out = ByteBuffer.allocate(2 + 1 + 4 + 8 * texts.names() + 4 * texts.values() + texts.bytes()
                + outcome.bodyLength());
        out.putShort((short) outcome.status()).put((byte) (outcome.bodyStored() ? 1 : 0));
        out.putInt(headers.size());
        int next = 0;
        for (List<String> values : headers.values()) {
            byte[] name = texts.text(next++);
            out.putInt(name.length).put(name).putInt(values.size());
            for (int i = 0; i < values.size(); i++) {
                byte[] value = texts.text(next++);
                out.putInt(value.length).put(value);
            }
        }
        return outcome.putBodyInto(out).array();
    }

    /**
     * @param bytes what {@link #encode} made
     * @return the outcome
     */
    static StoredOutcome decode(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        int status = Short.toUnsignedInt(in.getShort());
        boolean bodyStored = in.get() == 1;
        int count = in.getInt();
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (int h = 0; h < count; h++) {
            String name = string(in, in.getInt());
            int values = in.getInt();
            List<String> list = new ArrayList<>(values);
            for (int v = 0; v < values; v++) {
                list.add(string(in, in.getInt()));
            }
            headers.put(name, list);
        }
        byte[] body = new byte[in.remaining()];
        in.get(body);
        return bodyStored ? StoredOutcome.of(status, headers, body) : StoredOutcome.withoutBody(status, headers);
    }

    private static String string(ByteBuffer in, int length) {
        String value = new String(in.array(), in.position(), length, StandardCharsets.UTF_8);
        in.position(in.position() + length);
        return value;
    }
}
