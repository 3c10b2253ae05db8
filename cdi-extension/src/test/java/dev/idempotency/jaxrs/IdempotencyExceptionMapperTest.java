package dev.idempotency.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.idempotency.exceptions.AnonymousTokenRequestException;
import dev.idempotency.exceptions.AuthenticationRequiredException;
import dev.idempotency.exceptions.IdempotencyConflictException;
import dev.idempotency.exceptions.IdempotencyException;
import dev.idempotency.exceptions.IdempotencyKeyReuseException;
import dev.idempotency.exceptions.InvalidIdempotencyKeyException;
import dev.idempotency.exceptions.MissingTenantException;
import dev.idempotency.exceptions.TooManyTokensException;
import dev.idempotency.exceptions.UnknownIdempotencyTokenException;
import dev.idempotency.jaxrs.internal.ProblemResponses;
import dev.idempotency.spi.IdempotencyStoreException;

/** What a problem answer tells an API client: its type and a plain sentence, never the library's internals. */
class IdempotencyExceptionMapperTest {

    private static final String WHERE = "bean com.acme.PaymentService, method charge";
    private static final String HASH = "Lh54aeACly5J";

    @Test
    void noProblemAnswerNamesAJavaClassAMethodOrAKeyHash() {
        List<IdempotencyException> thrown = List.of(
                new IdempotencyConflictException("IDEMP0407: " + WHERE + ": the claim for key hash " + HASH
                        + " was no longer owned; raise the lease"),
                new IdempotencyKeyReuseException("IDEMP0306: " + WHERE + ": the idempotency key (hash " + HASH + ")"),
                new UnknownIdempotencyTokenException("IDEMP0316: " + WHERE + ": the key is not a token"),
                new AnonymousTokenRequestException("IDEMP0319: " + WHERE),
                new TooManyTokensException("IDEMP0314: " + WHERE + " " + HASH, 30),
                new InvalidIdempotencyKeyException("IDEMP0303: " + WHERE + ": the idempotency key from parameter 0"),
                new IdempotencyStoreException("IDEMP0402: " + WHERE + " " + HASH),
                new MissingTenantException("IDEMP0321: " + WHERE + ": the call has no tenant (tenant source RESOLVER)"),
                new AuthenticationRequiredException("IDEMP0322: " + WHERE + ": the caller is anonymous"),
                new IdempotencyException("IDEMP0310: " + WHERE + ": the call with this key (hash " + HASH + ")"));
        for (IdempotencyException exception : thrown) {
            IdempotencyExceptionMapper.ClientProblem answer = IdempotencyExceptionMapper.ClientProblem.of(exception);
            String body = ProblemResponses.body(answer.problem(), answer.detail());

            assertThat(body).as(exception.getClass().getSimpleName())
                    .contains("\"type\":\"https://idempotency.dev/problems/", "\"detail\":\"")
                    .doesNotContain("IDEMP", "com.acme", "PaymentService", "charge", HASH, "bean ", "method ", "hash",
                            "lease");
        }
        assertThat(IdempotencyExceptionMapper.ClientProblem.of(thrown.get(0)).problem())
                .isEqualTo(IdempotencyProblem.REQUEST_IN_PROGRESS);
        assertThat(IdempotencyExceptionMapper.ClientProblem.of(thrown.get(1)).problem())
                .isEqualTo(IdempotencyProblem.KEY_REUSED);
        assertThat(IdempotencyExceptionMapper.ClientProblem.of(thrown.get(7)).problem())
                .isEqualTo(IdempotencyProblem.MISSING_TENANT);
        assertThat(IdempotencyExceptionMapper.ClientProblem.of(thrown.get(8)).problem())
                .as("401, not the outcome-unavailable 500").isEqualTo(IdempotencyProblem.AUTHENTICATION_REQUIRED);
    }
}
