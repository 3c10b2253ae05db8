package dev.idempotency.it.mdb;

import java.util.Map;

import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import dev.idempotency.it.consumers.Redeliveries;
import dev.idempotency.it.consumers.SideEffects;

/** Redelivers one JMS message to a message-driven bean through the loopback adapter. */
@Path("mdb")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class MdbHarness {

    @Resource
    ManagedExecutorService executor;

    @Inject
    SideEffects effects;

    @POST
    @Path("{destination}")
    public Map<String, Object> deliver(@PathParam("destination") String destination,
            @QueryParam("messageId") String messageId, @QueryParam("orderId") String orderId,
            @QueryParam("times") int times, @QueryParam("concurrent") int concurrent,
            @QueryParam("delayMs") long delayMs) throws Exception {
        String variant = destination.equals("orders") ? "mdb" : "mdb-property";
        return Redeliveries.run(executor, effects, variant, () -> {
            // a redelivery: the same id and properties, a new message object each time
            LoopbackResourceAdapter.deliver(destination,
                    Messages.of(messageId, Map.of("orderId", orderId, "delayMs", String.valueOf(delayMs))));
            return "delivered";
        }, times, concurrent);
    }
}
