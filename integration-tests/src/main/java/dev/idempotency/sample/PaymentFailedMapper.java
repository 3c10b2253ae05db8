package dev.idempotency.sample;

import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/** A failed payment is a 502 problem: the caller may retry with the same key. */
@Provider
public class PaymentFailedMapper implements ExceptionMapper<PaymentFailedException> {

    @Override
    public Response toResponse(PaymentFailedException failure) {
        return ProblemJson.of(Response.Status.BAD_GATEWAY, "Payment failed", failure.getMessage());
    }
}
