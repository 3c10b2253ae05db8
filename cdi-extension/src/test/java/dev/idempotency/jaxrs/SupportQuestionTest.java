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
}
