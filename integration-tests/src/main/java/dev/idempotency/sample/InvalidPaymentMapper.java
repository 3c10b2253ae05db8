package dev.idempotency.sample;

import java.util.TreeSet;

import jakarta.validation.ConstraintViolation;
import jakarta.validation.ConstraintViolationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * A payment order that breaks a constraint is a 400 problem naming the fields, never the values
 * (they may be anything a client sent). The method did not run, so the key stays free for the
 * corrected request.
 */
@Provider
public class InvalidPaymentMapper implements ExceptionMapper<ConstraintViolationException> {

    @Override
    public Response toResponse(ConstraintViolationException invalid) {
        TreeSet<String> fields = new TreeSet<>();
        for (ConstraintViolation<?> violation : invalid.getConstraintViolations()) {
            String path = violation.getPropertyPath().toString();
            fields.add(path.substring(path.lastIndexOf('.') + 1));
        }
        return ProblemJson.of(Response.Status.BAD_REQUEST, "Invalid payment order", "invalid fields: " + String.join(", ", fields));
    }
}
