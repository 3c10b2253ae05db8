package dev.idempotency.infinispan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.infinispan.commons.marshall.ProtoStreamMarshaller;
import org.junit.jupiter.api.Tag;

import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;

/**
 * Fuzzes the ProtoStream encoding of the Infinispan store's values ({@link StoredRecord},
 * {@link StoredHeader}, {@link IdempotencySchema}) in the JVM, no server: marshalled the way the
 * Hot Rod client does (a {@link ProtoStreamMarshaller} knowing the schema) and read back,
 * <ul>
 *   <li>any record (any state text, status, headers with any names and values, empty and
 *       non-ASCII included, any body bytes, empty or none) has every field equal, the body byte for
 *       byte;</li>
 *   <li>any outcome stored through {@code completed} comes back from the store as an equal
 *       {@link StoredOutcome}, its body byte for byte. The one normalisation: a header name with no
 *       values is not kept (it has nothing to replay).</li>
 * </ul>
 */
@Tag("fuzz")
class StoredRecordFuzzTest {

    private static final ProtoStreamMarshaller MARSHALLER = new ProtoStreamMarshaller();

    static {
        MARSHALLER.register(IdempotencySchema.INSTANCE);
    }

    @FuzzTest(maxDuration = "15s")
    void recordsAndOutcomesReadBackEqual(FuzzedDataProvider data) throws Exception {
        List<StoredHeader> headers = new ArrayList<>();
        for (int i = data.consumeInt(0, 6); i > 0; i--) {
            headers.add(new StoredHeader(data.consumeString(30), data.consumeString(60)));
        }
        StoredRecord record = new StoredRecord(data.consumeString(20), data.consumeString(50), data.consumeString(40),
                data.consumeBoolean() ? data.consumeInt() : null, headers,
                data.consumeBoolean() ? data.consumeBytes(data.consumeInt(0, 2048)) : null,
                data.consumeBoolean() ? data.consumeBoolean() : null, data.consumeBoolean() ? data.consumeLong() : null,
                data.consumeBoolean() ? data.consumeInt() : null);

        StoredRecord back = roundTrip(record);

        assertThat(back.getState()).isEqualTo(record.getState());
        assertThat(back.getFingerprint()).isEqualTo(record.getFingerprint());
        assertThat(back.getOwner()).isEqualTo(record.getOwner());
        assertThat(back.getOutcomeStatus()).isEqualTo(record.getOutcomeStatus());
        assertThat(back.getOutcomeHeaders()).extracting(StoredHeader::getName, StoredHeader::getValue)
                .isEqualTo(record.getOutcomeHeaders().stream()
                        .map(h -> tuple(h.getName(), h.getValue())).toList());
        assertThat(back.getOutcomeBody()).isEqualTo(record.getOutcomeBody());
        assertThat(back.getBodyStored()).isEqualTo(record.getBodyStored());
        assertThat(back.getLeaseMillis()).isEqualTo(record.getLeaseMillis());
        assertThat(back.getRewrites()).isEqualTo(record.getRewrites());

        StoredOutcome outcome = outcome(data);
        IdempotencyRecord stored = roundTrip(StoredRecord.claimed(record.getFingerprint(), record.getOwner(), 1000)
                .completed(outcome)).toRecord("k", false);
        assertThat(stored.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(stored.fingerprint()).isEqualTo(record.getFingerprint());
        StoredOutcome expected = withoutEmptyHeaders(outcome);
        assertThat(stored.outcome().headers()).containsExactlyEntriesOf(expected.headers());
        assertThat(stored.outcome().body()).isEqualTo(expected.body());
        assertThat(stored.outcome()).isEqualTo(expected);
    }

    private static StoredRecord roundTrip(StoredRecord record) throws Exception {
        return (StoredRecord) MARSHALLER.objectFromByteBuffer(MARSHALLER.objectToByteBuffer(record));
    }

    private static StoredOutcome outcome(FuzzedDataProvider data) {
        int status = data.consumeInt(100, 999);
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (int i = data.consumeInt(0, 5); i > 0; i--) {
            List<String> values = new ArrayList<>();
            for (int j = data.consumeInt(0, 3); j > 0; j--) {
                values.add(data.consumeString(40));
            }
            headers.put(data.consumeString(20), values);
        }
        return data.consumeBoolean() ? StoredOutcome.of(status, headers, data.consumeBytes(data.consumeInt(0, 2048)))
                : StoredOutcome.withoutBody(status, headers);
    }

    private static StoredOutcome withoutEmptyHeaders(StoredOutcome outcome) {
        Map<String, List<String>> headers = new LinkedHashMap<>(outcome.headers());
        headers.values().removeIf(List::isEmpty);
        return outcome.bodyStored() ? StoredOutcome.of(outcome.status(), headers, outcome.body())
                : StoredOutcome.withoutBody(outcome.status(), headers);
    }
}
