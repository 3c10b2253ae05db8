package dev.idempotency.sample;

import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * A body that is not a payment order in JSON (broken syntax, a string where a number belongs) is
 * a 400 problem, not the server's 500 error page with its stack trace. The parser's message is
 * left out: it quotes the input.
 */
@Provider
public class UnreadablePaymentMapper implements ExceptionMapper<ProcessingException> {

    @Override
    public Response toResponse(ProcessingException unreadable) {
        return ProblemJson.of(Response.Status.BAD_REQUEST, "Unreadable payment order", "the body is not a JSON payment order");
    }
}
