package dev.idempotency.it.resources;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import dev.idempotency.IdempotencyEvent;

/** An application's observer of the library's outcome events, counting them per endpoint and outcome. */
@Path("outcomes")
@ApplicationScoped
public class OutcomeLog {

    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

    void on(@Observes IdempotencyEvent event) {
        counts.computeIfAbsent(event.endpoint() + " " + event.outcome(), k -> new AtomicLong()).incrementAndGet();
    }

    @GET
    @Path("{outcome}")
    @Produces(MediaType.APPLICATION_JSON)
    public String count(@PathParam("outcome") String outcome, @QueryParam("endpoint") String endpoint) {
        AtomicLong count = counts.get(endpoint + " " + outcome);
        return "{\"count\":" + (count == null ? 0 : count.get()) + "}";
    }
}
