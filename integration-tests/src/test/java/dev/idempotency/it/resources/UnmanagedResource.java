package dev.idempotency.it.resources;

import java.util.concurrent.atomic.AtomicLong;

import jakarta.enterprise.inject.Vetoed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import dev.idempotency.Idempotent;

/** A resource that is not a CDI bean (vetoed): Jersey creates it, no interceptor sees it. */
@Vetoed
@Path("unmanaged")
@Produces(MediaType.APPLICATION_JSON)
public class UnmanagedResource {

    static final AtomicLong EXECUTIONS = new AtomicLong();

    @POST
    @Idempotent
    public String create(@QueryParam("fail") boolean fail) {
        long n = EXECUTIONS.incrementAndGet();
        if (fail) {
            throw new IllegalStateException("unmapped failure");
        }
        return "{\"execution\":" + n + "}";
    }

    @GET
    @Path("count")
    public String count() {
        return "{\"count\":" + EXECUTIONS.get() + "}";
    }
}
