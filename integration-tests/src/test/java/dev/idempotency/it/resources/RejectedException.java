package dev.idempotency.it.resources;

import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/** A business exception the application maps to 400. */
public class RejectedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public RejectedException(String message) {
        super(message);
    }

    /** Maps it to a plain 400. */
    @Provider
    public static class Mapper implements ExceptionMapper<RejectedException> {
        @Override
        public Response toResponse(RejectedException exception) {
            return Response.status(400).entity("rejected: " + exception.getMessage()).type("text/plain").build();
        }
    }
}
