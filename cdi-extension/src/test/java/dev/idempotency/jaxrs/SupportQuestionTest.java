package dev.idempotency.jaxrs;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import dev.idempotency.lookup.BadSupportQuery;

/** A support question that is no usable JSON object is the client's mistake: a {@code 400}, never a {@code 500}. */
class SupportQuestionTest {

    @Test
    void aNumberBeyondTheJsonParsersLimitIsABadQuestion() {
        // JSON-P (Parsson) refuses numbers of more than 1,100 digits with an UnsupportedOperationException,
        // no JsonException: the container answered 500.
        String digits = "1".repeat(1_101);

        assertThatThrownBy(() -> IdempotencySupportResource.parse(digits))
                .isInstanceOf(BadSupportQuery.class);
        assertThatThrownBy(() -> IdempotencySupportResource.parse("{\"endpoint\":\"e\",\"key\":" + digits + "}"))
                .isInstanceOf(BadSupportQuery.class);
    }

    /**
     * The question was a String entity parameter: the container read a body of any size into
     * memory before the method checked the caller's role (an anonymous caller's 100 MB body was
     * held before its 401). The method reads the stream itself now, after the role check, and no
     * more than a question needs.
     */
    @Test
    void aQuestionIsReadOnlyUpToWhatAQuestionNeeds() {
        long[] read = {0};
        java.io.InputStream endless = new java.io.InputStream() {
            @Override
            public int read() {
                read[0]++;
                return ' ';
            }
        };

        assertThatThrownBy(() -> IdempotencySupportResource.question(endless)).isInstanceOf(BadSupportQuery.class)
                .hasMessageContaining("16384 bytes");
        org.assertj.core.api.Assertions.assertThat(read[0]).isLessThanOrEqualTo(16_385);
        org.assertj.core.api.Assertions.assertThat(IdempotencySupportResource.question(new java.io.ByteArrayInputStream(
                "{\"endpoint\":\"e\",\"key\":\"k\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8))).getString("key"))
                .isEqualTo("k");
    }
}
