package dev.idempotency.it.resources;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import dev.idempotency.Idempotent;
import dev.idempotency.store.InMemoryIdempotencyStore;

/** A cheap idempotent endpoint to flood with keys, and a view of the in-memory store and the heap. */
@Path("flood")
@ApplicationScoped
public class FloodResource {

    private final AtomicLong executions = new AtomicLong();

    @Inject
    InMemoryIdempotencyStore store;

    /** @return a small answer (about 1 KiB), stored for replay */
    @POST
    @Idempotent
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Object> accept() {
        return Map.of("n", executions.incrementAndGet(), "padding", "p".repeat(1000));
    }

    /**
     * @param gc whether to collect garbage first, so that the heap figure is what is live
     * @return the executions, the store's size and capacity, and the heap in use
     */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Long> state(@jakarta.ws.rs.QueryParam("gc") boolean gc) {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        store.find("flood-state"); // a look-up sweeps expired records, as any store call does
        if (gc) {
            for (int i = 0; i < 3; i++) {
                memory.gc();
            }
        }
        return Map.of("executions", executions.get(), "size", (long) store.size(), "max", (long) store.maxEntries(),
                "heap", memory.getHeapMemoryUsage().getUsed());
    }
}
