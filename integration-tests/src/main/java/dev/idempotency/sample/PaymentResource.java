package dev.idempotency.sample;

import java.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.NewCookie;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;

import dev.idempotency.Idempotent;

/** The payments API. {@code POST /api/payments} is idempotent: send an {@code Idempotency-Key}. */
@Path("payments")
@RequestScoped
public class PaymentResource {

    /** The longest {@code delayMs} honoured, so that a typo cannot hang a thread for hours. */
    static final long MAX_DELAY_MS = 30_000;

    @Inject
    PaymentLedger ledger;

    @Context
    SecurityContext security;

    @Context
    UriInfo uriInfo;

    /**
     * Creates a payment: 201 with {@code Location} and the payment, a fresh id per execution. One
     * transaction holds the payment row and the idempotency record: both commit, or neither.
     *
     * @param request the order to pay
     * @return the created payment, or the simulated status
     * @throws InterruptedException when interrupted during {@code delayMs}
     */
    @POST
    @Idempotent
    @Transactional(rollbackOn = Exception.class)
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response create(@Valid @NotNull PaymentRequest request) throws InterruptedException {
        ledger.countExecution();
        if (request.getDelayMs() > 0) {
            Thread.sleep(Math.min(request.getDelayMs(), MAX_DELAY_MS));
        }
        if (request.getSimulateStatus() != null) {
            return Response.status(request.getSimulateStatus())
                    .entity(Map.of("simulatedStatus", request.getSimulateStatus()))
                    .build();
        }
        Principal caller = security.getUserPrincipal();
        Payment payment = new Payment(UUID.randomUUID().toString(), request.getOrderId(), request.getAmount(),
                request.getCurrency(), caller == null ? "anonymous" : caller.getName());
        ledger.add(payment);
        if (ledger.attempt(request.getOrderId()) <= request.getFailTimes()) {
            throw new PaymentFailedException(request.getOrderId());
        }
        return Response.created(uriInfo.getAbsolutePathBuilder().path(payment.id()).build())
                .cookie(new NewCookie.Builder("last-payment").value(payment.id()).path("/").build())
                .entity(payment)
                .build();
    }

    /** @return how many times {@link #create} ran: {@code {"count":N}} */
    @GET
    @Path("executions")
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Long> executions() {
        return Map.of("count", ledger.executions());
    }

    /**
     * @param orderId an order
     * @return the rows of the {@code payment} table for that order
     */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public List<Payment> byOrder(@QueryParam("orderId") String orderId) {
        return ledger.byOrder(orderId);
    }

    /**
     * @param id a payment id
     * @return the payment
     */
    @GET
    @Path("{id}")
    @Produces(MediaType.APPLICATION_JSON)
    public Payment find(@PathParam("id") String id) {
        return ledger.find(id).orElseThrow(NotFoundException::new);
    }
}
