package dev.idempotency.sample.imports;

import java.security.Principal;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;

import dev.idempotency.Idempotent;
import dev.idempotency.exceptions.IdempotencyKeyReuseException;

/**
 * Accept now, process once, later: {@code POST /api/imports} writes a PENDING row to the local
 * message table in its transaction and answers {@code 202 Accepted} with a status URL; the
 * {@link ImportWorkers} process it. A retry of the POST replays the same 202; after the
 * idempotency record's ttl it finds its row and gets its status again, and another import sent
 * with that key gets {@code 422}, as within the ttl.
 */
@Path("imports")
@RequestScoped
public class ImportResource {

    @PersistenceContext(unitName = "payments")
    EntityManager entityManager;

    @Inject
    ImportActivity activity;

    @Context
    SecurityContext security;

    @Context
    UriInfo uriInfo;

    /**
     * @param key the request's idempotency key (the library has already claimed it)
     * @param request the payment to import
     * @return 202 with the message's status and its URL
     */
    @POST
    @Idempotent
    @Transactional
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response submit(@HeaderParam("Idempotency-Key") String key, ImportRequest request) {
        String payer = payerOf(security.getUserPrincipal());
        // The message row is unique per caller and key too: after the idempotency record's ttl a
        // retry finds the row instead of queueing the import twice.
        ImportMessage message = entityManager.createQuery("SELECT m FROM ImportMessage m WHERE m.payer = :payer"
                        + " AND m.idempotencyKey = :key", ImportMessage.class)
                .setParameter("payer", payer).setParameter("key", key)
                .getResultStream().findFirst()
                .orElseGet(() -> {
                    ImportMessage fresh = new ImportMessage(UUID.randomUUID().toString(), key, payer, request, Instant.now());
                    entityManager.persist(fresh);
                    return fresh;
                });
        if (!message.isFor(request)) {
            // The row outlives the idempotency record: another import under its key is refused as the
            // library refuses it within the ttl (422 key-reused), never answered with this one's 202.
            throw new IdempotencyKeyReuseException("import message " + message.id() + " holds another import under this key");
        }
        return Response.accepted(ImportStatus.of(message))
                .location(uriInfo.getBaseUriBuilder().path("imports").path(message.id()).build())
                .build();
    }

    /**
     * @param id a message id
     * @return its status
     */
    @GET
    @Path("{id}")
    @Produces(MediaType.APPLICATION_JSON)
    public ImportStatus status(@PathParam("id") String id) {
        ImportMessage message = entityManager.find(ImportMessage.class, id);
        // its payer's only, as its submission: another caller holding the URL learns nothing, not even that it exists
        if (message == null || !message.payer().equals(payerOf(security.getUserPrincipal()))) {
            throw new NotFoundException();
        }
        return ImportStatus.of(message);
    }

    private static String payerOf(Principal caller) {
        return caller == null ? "anonymous" : caller.getName();
    }

    /** @return what the workers of this JVM did */
    @GET
    @Path("activity")
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Long> activity() {
        return activity.counters();
    }
}
