package dev.idempotency.sample;

import java.util.Map;
import java.util.UUID;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import dev.idempotency.IdempotencyFingerprint;
import dev.idempotency.Idempotent;

/**
 * Webhook receivers: their senders redeliver an event until they get a {@code 2xx}, each time
 * with the event's id, but not in an {@code Idempotency-Key}. Each receiver takes the key where its
 * sender puts it, so that a redelivery runs nothing and gets the first answer back.
 */
@Path("webhooks")
@RequestScoped
public class WebhookResource {

    @Inject
    WebhookDeliveries deliveries;

    /**
     * A GitHub webhook: every delivery has a GUID in {@code X-GitHub-Delivery}, which a
     * redelivery keeps. The payload must be the same bytes.
     *
     * @param payload the event, as GitHub sent it
     * @return the receipt of the first delivery
     */
    @POST
    @Path("github")
    @Idempotent(keyHeader = "X-GitHub-Delivery")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public WebhookReceipt github(String payload) {
        return receive("github");
    }

    /**
     * A CloudEvent in binary mode: its id is the {@code ce-id} header, unique per
     * {@code ce-source}, and it alone decides (the data may be re-encoded by a broker on its way).
     *
     * @param data the event's data
     * @return the receipt of the first delivery
     */
    @POST
    @Path("cloudevents")
    @Idempotent(keyHeader = "ce-id", fingerprint = IdempotencyFingerprint.NONE)
    @Produces(MediaType.APPLICATION_JSON)
    public WebhookReceipt cloudEvent(String data) {
        return receive("cloudevents");
    }

    /**
     * A Stripe event: its id ({@code evt_...}) is the {@code id} member of the JSON body. A
     * redelivery is the same event; as canonical JSON, another serialisation of it replays too.
     *
     * @param event the event, as Stripe sent it
     * @return the receipt of the first delivery
     */
    @POST
    @Path("stripe")
    @Idempotent(keyFromBody = "/id", fingerprint = IdempotencyFingerprint.JSON)
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public WebhookReceipt stripe(String event) {
        return receive("stripe");
    }

    /**
     * @param receiver {@code github}, {@code cloudevents} or {@code stripe}
     * @return how many times it ran: {@code {"count":N}}
     */
    @GET
    @Path("{receiver}/executions")
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Long> executions(@PathParam("receiver") String receiver) {
        return Map.of("count", deliveries.executions(receiver));
    }

    private WebhookReceipt receive(String receiver) {
        return new WebhookReceipt(receiver, deliveries.countExecution(receiver), UUID.randomUUID().toString());
    }
}
