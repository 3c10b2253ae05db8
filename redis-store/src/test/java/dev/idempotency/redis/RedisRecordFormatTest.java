package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;

/** The outcome's bytes, read back from a completed record as the completion script leaves it. */
class RedisRecordFormatTest {

    @Test
    void anOutcomeWithSeveralValuesPerHeaderAndNonAsciiTextIsReadBackByteForByte() {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("Set-Cookie", List.of("a=1; Path=/", "b=2"));
        headers.put("Content-Language", List.of("de-CH"));
        headers.put("X-Städte", List.of("Zürich, Genève", ""));
        headers.put("X-Empty", List.of());
        byte[] body = "{\"name\":\"Ærøskøbing\"}".getBytes(StandardCharsets.UTF_8);
        StoredOutcome outcome = StoredOutcome.of(201, headers, body);

        IdempotencyRecord record = RedisRecordFormat.read("k", completed("fp-1", "owner-1", outcome), 0);

        assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(record.fingerprint()).isEqualTo("fp-1");
        assertThat(record.outcome()).isEqualTo(outcome);
        assertThat(List.copyOf(record.outcome().headers().keySet())).as("in their order")
                .containsExactly("Set-Cookie", "Content-Language", "X-Städte", "X-Empty");
        assertThat(record.outcome().body()).isEqualTo(body);
    }

    @Test
    void anOutcomeWithoutItsBodyStaysOneWithoutItsBody() {
        StoredOutcome outcome = StoredOutcome.withoutBody(200, Map.of("ETag", List.of("\"v1\"")));

        StoredOutcome read = RedisRecordFormat.read("k", completed("fp", "o", outcome), 0).outcome();

        assertThat(read.bodyStored()).isFalse();
        assertThat(read).isEqualTo(outcome);
    }

    /** Format 1 lives on in Redis across deployments: its bytes are pinned, not only read back. */
    @Test
    void theOutcomeIsWrittenInFormatOneByteForByte() {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("X-Empty", List.of());
        headers.put("X-Ü", List.of("é", ""));

        assertThat(RedisRecordFormat.outcome(StoredOutcome.withoutBody(200, headers))).containsExactly(
                0x00, 0xC8, // status
                0x00, // flags: body not stored
                0x00, 0x02, // header count
                0x00, 0x07, 'X', '-', 'E', 'm', 'p', 't', 'y', 0x00, 0x00, // name, no values
                0x00, 0x04, 'X', '-', 0xC3, 0x9C, 0x00, 0x02, // name, two values
                0x00, 0x00, 0x00, 0x02, 0xC3, 0xA9, // é
                0x00, 0x00, 0x00, 0x00, // the empty value
                0x00, 0x00, 0x00, 0x00); // body length
        assertThat(RedisRecordFormat.outcome(StoredOutcome.of(201, Map.of(), new byte[] {'o', 'k'}))).containsExactly(
                0x00, 0xC9, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 'o', 'k');
    }

    /** What the completion script writes: the claim's identity under a completed head, then the outcome. */
    private static byte[] completed(String fingerprint, String owner, StoredOutcome outcome) {
        byte[] claim = RedisRecordFormat.claim(fingerprint.getBytes(StandardCharsets.UTF_8),
                owner.getBytes(StandardCharsets.UTF_8), 1000);
        byte[] tail = RedisRecordFormat.outcome(outcome);
        ByteBuffer record = ByteBuffer.allocate(claim.length + tail.length).put(claim).put(tail);
        record.put(1, (byte) RedisRecordFormat.COMPLETED).putLong(2, 0).putInt(10, 2);
        return record.array();
    }
}
