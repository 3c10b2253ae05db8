package dev.idempotency.it.resources.orders;

import java.util.concurrent.ThreadLocalRandom;

import jakarta.enterprise.context.RequestScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import dev.idempotency.state.IllegalTransitionException;
import dev.idempotency.state.StateMachine;
import dev.idempotency.state.Transition;

/**
 * An application using the state-machine guard, with no {@code @Idempotent} in front of it: the
 * last line of defence alone. Paying charges only when the transition changed the state.
 */
@Path("lifecycle")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class LifecycleResource {

    static final StateMachine<LifecycleState> ORDERS = StateMachine.of(LifecycleState.class)
            .allow(LifecycleState.PENDING, LifecycleState.PAID, LifecycleState.CANCELLED)
            .allow(LifecycleState.PAID, LifecycleState.REFUNDED)
            .build();

    @PersistenceContext(unitName = "payments")
    EntityManager em;

    @POST
    @Transactional
    public String create() {
        long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        em.persist(new LifecycleOrder(id));
        return "{\"id\":" + id + "}";
    }

    @POST
    @Path("{id}/{target}")
    @Transactional
    public Response move(@PathParam("id") long id, @PathParam("target") LifecycleState target) {
        LifecycleOrder order = em.find(LifecycleOrder.class, id);
        try {
            Transition<LifecycleState> moved = ORDERS.transition(em, order, target);
            if (moved.changed() && target == LifecycleState.PAID) {
                order.charge(); // the side effect that must happen once
            }
            return Response.ok("{\"state\":\"" + moved.current() + "\",\"changed\":" + moved.changed() + "}").build();
        } catch (IllegalTransitionException e) {
            return Response.status(409).entity("{\"refused\":\"" + e.getMessage().replace("\"", "'") + "\"}").build();
        }
    }

    @GET
    @Path("{id}")
    @Transactional
    public String read(@PathParam("id") long id) {
        LifecycleOrder order = em.find(LifecycleOrder.class, id);
        em.refresh(order);
        return "{\"state\":\"" + order.state() + "\",\"version\":" + order.version() + ",\"charges\":" + order.charges()
                + "}";
    }
}
