package dev.idempotency.jaxrs;

import jakarta.enterprise.inject.spi.CDI;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

import dev.idempotency.AnonymousTokenRequestException;
import dev.idempotency.IdempotencyConflictException;
import dev.idempotency.IdempotencyException;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.InvalidIdempotencyKeyException;
import dev.idempotency.TooManyTokensException;
import dev.idempotency.UnknownIdempotencyTokenException;
import dev.idempotency.cdi.IdempotencyRuntime;
import dev.idempotency.spi.IdempotencyStoreException;

/**
 * Turns this library's exceptions that reach JAX-RS (from an {@code @Idempotent} bean a resource
 * calls) into the same problem answers as the HTTP contract: 409, 422, 400 and 503.
 */
@Provider
public class IdempotencyExceptionMapper implements ExceptionMapper<IdempotencyException> {

    private volatile Integer retryAfterSeconds;

    @Override
    public Response toResponse(IdempotencyException exception) {
        String detail = exception.getMessage();
        if (exception instanceof IdempotencyConflictException) {
            return ProblemResponses.retryable(IdempotencyProblem.REQUEST_IN_PROGRESS, detail, retryAfter());
        }
        if (exception instanceof IdempotencyKeyReuseException) {
            return ProblemResponses.of(IdempotencyProblem.KEY_REUSED, detail);
        }
        if (exception instanceof UnknownIdempotencyTokenException) {
            return ProblemResponses.of(IdempotencyProblem.UNKNOWN_TOKEN, detail);
        }
        if (exception instanceof AnonymousTokenRequestException) {
            return ProblemResponses.of(IdempotencyProblem.ANONYMOUS_TOKEN_REQUEST, detail);
        }
        if (exception instanceof TooManyTokensException tooMany) {
            return ProblemResponses.retryable(IdempotencyProblem.TOO_MANY_TOKENS, detail,
                    (int) Math.min(Integer.MAX_VALUE, tooMany.retryAfterSeconds()));
        }
        if (exception instanceof InvalidIdempotencyKeyException) {
            return ProblemResponses.of(IdempotencyProblem.INVALID_KEY, detail);
        }
        if (exception instanceof IdempotencyStoreException) {
            return ProblemResponses.retryable(IdempotencyProblem.STORE_UNAVAILABLE,
                    "The idempotency store cannot be reached; the operation was not executed. Retry later.", retryAfter());
        }
        return ProblemResponses.of(IdempotencyProblem.OUTCOME_UNAVAILABLE, detail);
    }

    private int retryAfter() {
        Integer seconds = retryAfterSeconds;
        if (seconds == null) {
            seconds = CDI.current().select(IdempotencyRuntime.class).get().settings().retryAfterSeconds();
            retryAfterSeconds = seconds;
        }
        return seconds;
    }
}
