package dev.idempotency.redis;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.spi.support.HeaderTexts;

/**
 * How a record is kept in Redis: one string value, big-endian, in format {@value #FORMAT}. The
 * head is fixed so that the Lua scripts read and write it with Redis' {@code struct} library
 * ({@code struct.unpack('>BBi8I4Hc0Bc0', value)}); only Java reads the outcome.
 *
 * <pre>
 * offset size  field
 * 0      1     format version, 1
 * 1      1     state: 1 in progress, 2 executed, 3 completed
 * 2      8     deadline, server milliseconds since the epoch (signed): in progress, when the lease
 *              ends; executed, when the outcome counts as lost; completed, 0. An in-progress
 *              record written by the claim's plain SET (no script, so no server time) holds 0 or
 *              less instead: its lease ends that many milliseconds before the record expires
 *              (the server's time plus the key's PTTL plus this number)
 * 10     4     version: 1 at a claim, one more at every change (takeover, a takeover given back,
 *              mark, completion)
 * 14     2     fingerprint length f, then f bytes of UTF-8
 * 16+f   1     owner token length o, then o bytes of UTF-8
 * 17+f+o       the outcome, completed records only:
 *        2     HTTP status
 *        1     flags: bit 0 set when the body was stored
 *        2     header count h, then h times: 2 name length, name (UTF-8), 2 value count v,
 *              then v times: 4 value length, value (UTF-8)
 *        4     body length b, then b bytes
 * </pre>
 *
 * A later format must keep the head (the first 17+f+o bytes) as it is, so that the scripts of
 * both versions can act on it; this version fails closed ({@code IDEMP0823}) on a format it does
 * not know, and reads a state it does not know as executed (never free).
 */
final class RedisRecordFormat {

    /** The format this version writes and reads. */
    static final int FORMAT = 1;
    static final int IN_PROGRESS = 1;
    static final int EXECUTED = 2;
    static final int COMPLETED = 3;
    static final int MAX_FINGERPRINT = 0xFFFF;
    static final int MAX_OWNER = 0xFF;

    private RedisRecordFormat() {
    }

    /**
     * @param outcome what retries get
     * @return the outcome's bytes, appended to the head by the completion script
     */
    static byte[] outcome(StoredOutcome outcome) {
        // one array of its exact size, so that the body is copied once
        Map<String, List<String>> headers = outcome.headers();
        HeaderTexts texts = HeaderTexts.of(headers);
        ByteBuffer out = ByteBuffer.allocate(2 + 1 + 2 + 4 * texts.names() + 4 * texts.values() + texts.bytes() + 4
                + outcome.bodyLength());
        out.putShort((short) outcome.status()).put((byte) (outcome.bodyStored() ? 1 : 0));
        out.putShort((short) checked("header count", headers.size(), 0xFFFF));
        int next = 0;
        for (List<String> values : headers.values()) {
            byte[] name = texts.text(next++);
            out.putShort((short) checked("header name", name.length, 0xFFFF));
            out.put(name).putShort((short) checked("header value count", values.size(), 0xFFFF));
            for (int i = 0; i < values.size(); i++) {
                byte[] value = texts.text(next++);
                out.putInt(value.length).put(value);
            }
        }
        out.putInt(outcome.bodyLength());
        outcome.putBodyInto(out);
        return out.array();
    }

    /**
     * A new claim, as the claim's plain {@code SET} writes it: in progress, version 1, its lease end
     * relative to the record's expiry (the server's clock, without a script).
     *
     * @param fingerprint the fingerprint's bytes (checked against {@link #MAX_FINGERPRINT})
     * @param owner the owner token's bytes (at most {@link #MAX_OWNER})
     * @param leaseEndsBeforeExpiry how many milliseconds before the record expires its lease ends
     *     (0 or more)
     * @return the record's bytes
     */
    static byte[] claim(byte[] fingerprint, byte[] owner, long leaseEndsBeforeExpiry) {
        ByteBuffer out = ByteBuffer.allocate(17 + fingerprint.length + owner.length);
        out.put((byte) FORMAT).put((byte) IN_PROGRESS).putLong(-leaseEndsBeforeExpiry).putInt(1);
        out.putShort((short) checked("fingerprint", fingerprint.length, MAX_FINGERPRINT)).put(fingerprint);
        out.put((byte) checked("owner token", owner.length, MAX_OWNER)).put(owner);
        return out.array();
    }

    /**
     * What a claim that found this record answers, where it needs neither the server's clock nor a
     * change: a completed record (a replay), or a claim of another request (a reused key, whatever
     * its lease). For anything else (a claim of this request, which its lease decides: in progress,
     * or taken over; an executed record, which the clock decides; a format this version does not
     * know) {@code null}: the claim script decides.
     *
     * @param key the scoped, hashed key
     * @param value the record found
     * @param fingerprint the claiming request's fingerprint
     * @return the record as the claim reports it, or {@code null}
     */
    static IdempotencyRecord answeredWithoutServerTime(String key, byte[] value, byte[] fingerprint) {
        if (value.length < 17 || Byte.toUnsignedInt(value[0]) != FORMAT) {
            return null;
        }
        int state = Byte.toUnsignedInt(value[1]);
        if (state == COMPLETED) {
            return read(key, value, Long.MIN_VALUE);
        }
        if (state != IN_PROGRESS) {
            return null;
        }
        int length = Short.toUnsignedInt(ByteBuffer.wrap(value, 14, 2).getShort());
        boolean same = length == fingerprint.length && value.length >= 16 + length
                && Arrays.equals(value, 16, 16 + length, fingerprint, 0, length);
        return same ? null : read(key, value, Long.MIN_VALUE);
    }

    /**
     * @param value the stored bytes of an in-progress or executed record {@link #read} accepted
     * @param serverNow the server's time when it was read, in milliseconds
     * @param millisLeft the key's PTTL when it was read
     * @return when its lease ends (in progress) or its outcome counts as lost (executed), server
     *     milliseconds since the epoch
     */
    static long deadline(byte[] value, long serverNow, long millisLeft) {
        long deadline = ByteBuffer.wrap(value, 2, 8).getLong();
        return deadline > 0 ? deadline : serverNow + millisLeft + deadline;
    }

    /**
     * @param what what is measured, for the message
     * @param length its length
     * @param max the most the format holds
     * @return the length
     * @throws IdempotencyStoreException when it is over the format's limit ({@code IDEMP0826}): the
     *     store cannot keep it, so the call fails closed as any store failure
     */
    static int checked(String what, int length, int max) {
        if (length > max) {
            throw new IdempotencyStoreException(RedisMessages.tooLong(what, length, max));
        }
        return length;
    }

    /**
     * @param value the stored bytes
     * @return whether reading it needs the server's time: an executed record (or one of a state a
     *     later version writes), whose outcome counts as lost once its deadline passed; a record of
     *     a format this version does not know is left to {@link #read}, which refuses it
     */
    static boolean needsServerTime(byte[] value) {
        if (value.length < 2 || Byte.toUnsignedInt(value[0]) != FORMAT) {
            return false;
        }
        int state = Byte.toUnsignedInt(value[1]);
        return state != IN_PROGRESS && state != COMPLETED;
    }

    /**
     * @param key the scoped, hashed key (without the prefix)
     * @param value the stored bytes
     * @param serverNow the server's time when the value was read, in milliseconds
     * @return the record as the SPI reports it: an executed record past its deadline is OUTCOME_LOST
     * @throws IdempotencyStoreException when the value is of a format this version does not read, or damaged
     */
    static IdempotencyRecord read(String key, byte[] value, long serverNow) {
        ByteBuffer in = ByteBuffer.wrap(value);
        try {
            int format = Byte.toUnsignedInt(in.get());
            if (format != FORMAT) {
                throw new IdempotencyStoreException(RedisMessages.unknownFormat(format));
            }
            int state = Byte.toUnsignedInt(in.get());
            long deadline = in.getLong();
            in.getInt(); // the version: the scripts' business
            String fingerprint = text(in, Short.toUnsignedInt(in.getShort()));
            text(in, Byte.toUnsignedInt(in.get())); // the owner: never shown to other callers
            if (state == IN_PROGRESS) {
                return IdempotencyRecord.inProgress(key, fingerprint);
            }
            if (state == COMPLETED) {
                return IdempotencyRecord.completed(key, fingerprint, readOutcome(in));
            }
            // EXECUTED, or a state of a later version: never free, lost once its deadline passed
            return serverNow >= deadline ? IdempotencyRecord.outcomeLost(key, fingerprint)
                    : IdempotencyRecord.executed(key, fingerprint);
        } catch (BufferUnderflowException | IllegalArgumentException e) {
            throw new IdempotencyStoreException(RedisMessages.unexpectedAnswer("a read", "a damaged record"), e);
        }
    }

    private static StoredOutcome readOutcome(ByteBuffer in) {
        int status = Short.toUnsignedInt(in.getShort());
        boolean bodyStored = (in.get() & 1) != 0;
        int headerCount = Short.toUnsignedInt(in.getShort());
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (int h = 0; h < headerCount; h++) {
            String name = text(in, Short.toUnsignedInt(in.getShort()));
            int valueCount = Short.toUnsignedInt(in.getShort());
            List<String> values = new ArrayList<>(valueCount);
            for (int v = 0; v < valueCount; v++) {
                values.add(text(in, in.getInt()));
            }
            headers.put(name, values);
        }
        int length = in.getInt();
        if (length < 0 || length > in.remaining()) {
            throw new BufferUnderflowException();
        }
        byte[] body = new byte[length];
        in.get(body);
        return bodyStored ? StoredOutcome.of(status, headers, body) : StoredOutcome.withoutBody(status, headers);
    }

    private static String text(ByteBuffer in, int length) {
        if (length < 0 || length > in.remaining()) {
            throw new BufferUnderflowException();
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
