package dev.idempotency.sample;

import jakarta.json.JsonException;
import jakarta.json.bind.JsonbException;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * A body that is not a payment order in JSON (broken syntax, a string where a number belongs) is
 * a 400 problem, not the server's 500 error page with its stack trace. The parser's message is
 * left out: it quotes the input. Any other processing failure stays a 500, without details.
 */
@Provider
public class UnreadablePaymentMapper implements ExceptionMapper<ProcessingException> {

    @Override
    public Response toResponse(ProcessingException failure) {
        for (Throwable cause = failure.getCause(); cause != null; cause = cause.getCause()) {
            if (cause instanceof JsonbException || cause instanceof JsonException) {
                return ProblemJson.of(Response.Status.BAD_REQUEST, "Unreadable payment order",
                        "the body is not a JSON payment order");
            }
        }
        return ProblemJson.of(Response.Status.INTERNAL_SERVER_ERROR, "Internal error", "the request could not be processed");
    }
}
