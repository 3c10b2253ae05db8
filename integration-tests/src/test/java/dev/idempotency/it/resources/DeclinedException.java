package dev.idempotency.it.resources;

import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/** A checked business exception: {@code @Transactional} commits the work done before it. */
public class DeclinedException extends Exception {

    private static final long serialVersionUID = 1L;

    public DeclinedException(String message) {
        super(message);
    }

    /** Maps it to 402. */
    @Provider
    public static class Mapper implements ExceptionMapper<DeclinedException> {
        @Override
        public Response toResponse(DeclinedException exception) {
            return Response.status(402).entity(exception.getMessage()).type("text/plain").build();
        }
    }
}
