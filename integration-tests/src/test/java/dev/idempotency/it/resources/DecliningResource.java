package dev.idempotency.it.resources;

import java.util.concurrent.atomic.AtomicLong;

import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import dev.idempotency.Idempotent;

/**
 * A CDI bean whose every payment is declined ({@code 402}). Under {@code /api} CDI creates it and
 * the interceptor sees its method; under {@code /by-instance} ({@link ByInstanceApplication}) the
 * application hands JAX-RS an instance of its own, which no interceptor sees.
 */
@RequestScoped
@Path("declining")
@Produces(MediaType.APPLICATION_JSON)
public class DecliningResource {

    static final AtomicLong EXECUTIONS = new AtomicLong();

    @POST
    @Idempotent
    public Response pay() {
        return Response.status(402).entity("{\"declined\":" + EXECUTIONS.incrementAndGet() + "}").build();
    }

    @GET
    @Path("count")
    public String count() {
        return "{\"count\":" + EXECUTIONS.get() + "}";
    }
}
