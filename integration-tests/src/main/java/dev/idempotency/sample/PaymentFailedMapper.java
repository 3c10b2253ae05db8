package dev.idempotency.sample;

import java.util.Map;

import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/** A failed payment is a 502 problem: the caller may retry with the same key. */
@Provider
public class PaymentFailedMapper implements ExceptionMapper<PaymentFailedException> {

    @Override
    public Response toResponse(PaymentFailedException failure) {
        return Response.status(Response.Status.BAD_GATEWAY)
                .type("application/problem+json")
                .entity(Map.of("type", "about:blank", "title", "Payment failed", "status", 502,
                        "detail", failure.getMessage()))
                .build();
    }
}
