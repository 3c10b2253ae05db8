package dev.idempotency.jaxrs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import dev.idempotency.jaxrs.IdempotencyProblem;

class ProblemResponsesTest {

    @Test
    void textIsJsonEscaped() {
        assertThat(ProblemResponses.quote("a \"b\" \\ c\n\u0001")).isEqualTo("\"a \\\"b\\\" \\\\ c\\n\\u0001\"");
    }

    @Test
    void problemTypesAreStableUris() {
        assertThat(IdempotencyProblem.KEY_REUSED.type()).hasToString("https://idempotency.dev/problems/key-reused");
        assertThat(IdempotencyProblem.KEY_REUSED.status()).isEqualTo(422);
        assertThat(IdempotencyProblem.REQUEST_IN_PROGRESS.status()).isEqualTo(409);
        assertThat(IdempotencyProblem.STORE_UNAVAILABLE.status()).isEqualTo(503);
    }
}
