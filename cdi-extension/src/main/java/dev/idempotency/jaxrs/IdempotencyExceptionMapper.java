package dev.idempotency.jaxrs;

import java.util.logging.Level;
import java.util.logging.Logger;

import jakarta.enterprise.inject.spi.CDI;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

import dev.idempotency.cdi.IdempotencyRuntime;
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

/**
 * Turns this library's exceptions that reach JAX-RS (from an {@code @Idempotent} bean a resource
 * calls) into the same problem answers as the HTTP contract: 409, 422, 400, 401 and 503. The client
 * gets the problem's type and a plain sentence; the exception's coded message (bean, method, key
 * hash) stays in the server's log.
 */
@Provider
public class IdempotencyExceptionMapper implements ExceptionMapper<IdempotencyException> {

    private static final Logger LOG = Logger.getLogger(IdempotencyExceptionMapper.class.getName());

    private volatile Integer retryAfterSeconds;
    private volatile String challenge;

    @Override
    public Response toResponse(IdempotencyException exception) {
        // The coded message names classes, methods and key hashes: it is for the server's log. API
        // clients read the problem's type and a plain sentence.
        LOG.log(Level.FINE, exception.getMessage(), exception);
        ClientProblem answer = ClientProblem.of(exception);
        if (answer.problem() == IdempotencyProblem.AUTHENTICATION_REQUIRED) {
            return ProblemResponses.unauthorized(answer.detail(), challenge());
        }
        if (exception instanceof TooManyTokensException tooMany) {
            return ProblemResponses.retryable(answer.problem(), answer.detail(),
                    (int) Math.min(Integer.MAX_VALUE, tooMany.retryAfterSeconds()));
        }
        return answer.retryable() ? ProblemResponses.retryable(answer.problem(), answer.detail(), retryAfter())
                : ProblemResponses.of(answer.problem(), answer.detail());
    }

    /**
     * What a client is told of one of this library's exceptions.
     *
     * @param problem the problem type
     * @param detail a plain sentence for API clients, naming nothing internal
     * @param retryable whether the answer carries the library's {@code Retry-After}
     */
    record ClientProblem(IdempotencyProblem problem, String detail, boolean retryable) {

        static ClientProblem of(IdempotencyException exception) {
            if (exception instanceof IdempotencyConflictException) {
                return new ClientProblem(IdempotencyProblem.REQUEST_IN_PROGRESS,
                        "An operation with this idempotency key is in progress; this request was not applied."
                                + " Retry later to get its result.", true);
            }
            if (exception instanceof IdempotencyKeyReuseException) {
                return new ClientProblem(IdempotencyProblem.KEY_REUSED, "This idempotency key was used for an"
                        + " operation with other arguments. Use a new key for a new operation.", false);
            }
            if (exception instanceof UnknownIdempotencyTokenException) {
                return new ClientProblem(IdempotencyProblem.UNKNOWN_TOKEN, "The idempotency key is not a token issued"
                        + " to this caller, or it expired; nothing was executed. Ask for a new token.", false);
            }
            if (exception instanceof AnonymousTokenRequestException) {
                return new ClientProblem(IdempotencyProblem.ANONYMOUS_TOKEN_REQUEST,
                        "Idempotency tokens are issued to authenticated callers only.", false);
            }
            if (exception instanceof TooManyTokensException) {
                return new ClientProblem(IdempotencyProblem.TOO_MANY_TOKENS, "Too many idempotency tokens are"
                        + " outstanding for this caller. Use them, or retry once they expired.", false);
            }
            if (exception instanceof InvalidIdempotencyKeyException) {
                return new ClientProblem(IdempotencyProblem.INVALID_KEY, "The idempotency key is missing, empty, too"
                        + " long or not printable; nothing was executed.", false);
            }
            if (exception instanceof MissingTenantException) {
                return new ClientProblem(IdempotencyProblem.MISSING_TENANT, "This operation's idempotency keys are"
                        + " scoped by tenant, and the call names none; nothing was executed.", false);
            }
            if (exception instanceof AuthenticationRequiredException) {
                return new ClientProblem(IdempotencyProblem.AUTHENTICATION_REQUIRED,
                        "This operation requires an authenticated caller; nothing was executed.", false);
            }
            if (exception instanceof IdempotencyStoreException) {
                return new ClientProblem(IdempotencyProblem.STORE_UNAVAILABLE, "The idempotency store cannot be"
                        + " reached; the operation was not executed. Retry later.", true);
            }
            return new ClientProblem(IdempotencyProblem.OUTCOME_UNAVAILABLE, "The operation with this idempotency key"
                    + " was executed, but its result is not available. It will not be executed again.", false);
        }
    }

    private String challenge() {
        String value = challenge;
        if (value == null) {
            value = CDI.current().select(IdempotencyRuntime.class).get().settings().authenticationChallenge();
            challenge = value;
        }
        return value;
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
