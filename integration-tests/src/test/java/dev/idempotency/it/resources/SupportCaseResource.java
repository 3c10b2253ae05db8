package dev.idempotency.it.resources;

import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import dev.idempotency.Idempotent;
import dev.idempotency.sample.Payment;
import dev.idempotency.sample.PaymentLedger;
import dev.idempotency.sample.PaymentRequest;

/** A payment whose owner hangs, for the support look-up's release: its lease is 2 s. */
@Path("support-case")
@RequestScoped
public class SupportCaseResource {

    @Inject
    PaymentLedger ledger;

    @Inject
    Gates gates;

    /**
     * Waits at the gate named by {@code gate} (none: at once), then inserts its payment row in its
     * transaction.
     */
    @POST
    @Path("hung")
    @Idempotent(lease = "PT2S")
    @Transactional
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Payment hung(@QueryParam("gate") String gate, PaymentRequest request) throws InterruptedException {
        if (gate != null) {
            gates.pass(gate);
        }
        Payment payment = new Payment(UUID.randomUUID().toString(), request.getOrderId(), request.getAmount(),
                request.getCurrency(), "anonymous");
        ledger.add(payment);
        return payment;
    }

    @PersistenceContext(unitName = "payments")
    EntityManager entityManager;

    /**
     * @param orderId an order
     * @return the amounts of its payment rows, {@code [200]}: read with SQL, so that a table another
     *     JPA provider created (its {@code created_at} of another type) reads on every server
     */
    @GET
    @Path("amounts")
    @Produces(MediaType.APPLICATION_JSON)
    public String amounts(@QueryParam("orderId") String orderId) {
        List<?> amounts = entityManager.createNativeQuery("SELECT amount FROM payment WHERE order_id = ?1")
                .setParameter(1, orderId).getResultList();
        return amounts.stream().map(String::valueOf).collect(Collectors.joining(",", "[", "]"));
    }

    /** Opens a gate a hung payment waits at. */
    @POST
    @Path("gate/{name}")
    public Response openGate(@PathParam("name") String name) {
        gates.open(name);
        return Response.noContent().build();
    }
}
