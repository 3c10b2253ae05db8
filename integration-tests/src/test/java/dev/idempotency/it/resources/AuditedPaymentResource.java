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

/** A payment whose answer an application's response filter fails on ({@link FailingResponseFilter}). */
@RequestScoped
@Path("audited-payments")
@Produces(MediaType.APPLICATION_JSON)
public class AuditedPaymentResource {

    static final AtomicLong EXECUTIONS = new AtomicLong();

    @POST
    @Idempotent
    @FailsAfterItsAnswer
    public Response pay() {
        return Response.status(201).entity("{\"payment\":" + EXECUTIONS.incrementAndGet() + "}").build();
    }

    @GET
    @Path("count")
    public String count() {
        return "{\"count\":" + EXECUTIONS.get() + "}";
    }
}
