package dev.idempotency.it.overload;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Response;

/**
 * A business method that reads before it pays, as most do: its transaction takes a connection,
 * holds it a moment, then calls {@link Charger} (whose claim needs a second connection).
 */
@Path("overload")
@RequestScoped
public class OverloadResource {

    @PersistenceContext(unitName = "payments")
    EntityManager entityManager;

    @Inject
    Charger charger;

    @Inject
    CommitTogether together;

    @POST
    @Path("{orderId}")
    @Transactional
    public Response pay(@PathParam("orderId") String orderId) throws InterruptedException {
        entityManager.createNativeQuery("SELECT 1").getSingleResult(); // the connection stays with the transaction
        Thread.sleep(300); // so that every caller holds its connection when it claims
        return Response.status(201).entity(charger.charge(orderId)).build();
    }

    /**
     * Pays, then waits until as many callers as the pool has connections are here before it
     * commits: each transaction holds its connection (the library's statement in it took one),
     * and all commit at once.
     */
    @POST
    @Path("together/{orderId}")
    @Transactional
    public Response payTogether(@PathParam("orderId") String orderId) throws InterruptedException {
        String paid = charger.charge(orderId);
        together.await();
        return Response.status(201).entity(paid).build();
    }
}
