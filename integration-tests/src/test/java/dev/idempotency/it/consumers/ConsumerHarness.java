package dev.idempotency.it.consumers;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.RequestScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.UserTransaction;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** Delivers the same message many times, some concurrently, like a redelivering broker would. */
@Path("harness")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class ConsumerHarness {

    @Resource
    ManagedExecutorService executor;

    @Inject
    SideEffects effects;

    @Inject
    dev.idempotency.IdempotencyTokens tokens;

    @Inject
    CdiOrderConsumer cdi;

    @Inject
    EjbOrderConsumer ejb;

    @Inject
    SingletonOrderConsumer singleton;

    @Inject
    WaitingOrderConsumer waiting;

    @Inject
    Event<OrderMessage> events;

    @Inject
    TtlPrecedence.GlobalBeatsAnnotation globalBeatsAnnotation;

    @Inject
    TtlPrecedence.ClassAndMethod classAndMethod;

    private Function<OrderMessage, Object> consumer(String variant) {
        return switch (variant) {
            case "cdi" -> cdi::onOrder;
            case "ejb" -> ejb::onOrder;
            case "singleton" -> singleton::onOrder;
            case "waiting" -> waiting::onOrder;
            case "observer" -> message -> {
                events.fire(message);
                return "handled";
            };
            default -> throw new IllegalArgumentException(variant);
        };
    }

    /** Delivers one message {@code times} times, the first {@code concurrent} at once. */
    @POST
    @Path("deliver/{variant}")
    public Map<String, Object> deliver(@PathParam("variant") String variant, @QueryParam("orderNo") String orderNo,
            @QueryParam("times") int times, @QueryParam("concurrent") int concurrent,
            @QueryParam("delayMs") long delayMs) throws Exception {
        Function<OrderMessage, Object> consumer = consumer(variant);
        OrderMessage message = new OrderMessage(orderNo, 1250, delayMs);
        return Redeliveries.run(executor, effects, variant, () -> consumer.apply(message), times, concurrent);
    }

    /** Who the server says the caller is: its user principal's name, or "" when unauthenticated. */
    @POST
    @Path("whoami")
    public Map<String, String> whoami(@jakarta.ws.rs.core.Context jakarta.ws.rs.core.SecurityContext security) {
        return Map.of("user", security.getUserPrincipal() == null ? "" : security.getUserPrincipal().getName());
    }

    /** Issues a token to the current caller through the CDI bean, as a non-HTTP caller would. */
    @POST
    @Path("token")
    public Map<String, String> token() {
        return Map.of("token", tokens.issue().token());
    }

    /** Calls the CDI consumer straight from a resource: its exceptions reach JAX-RS. */
    @POST
    @Path("order/{orderNo}")
    public Receipt order(@PathParam("orderNo") String orderNo, @QueryParam("delayMs") long delayMs) {
        return cdi.onOrder(new OrderMessage(orderNo, 1250, delayMs));
    }

    /** The same call, from a resource whose callers the application authenticates itself, in a JAX-RS filter. */
    @POST
    @Path("api-key-order/{orderNo}")
    @ApiKeyAuthenticated
    public Receipt apiKeyOrder(@PathParam("orderNo") String orderNo) {
        return cdi.onOrder(new OrderMessage(orderNo, 1250, 0));
    }

    /**
     * As {@link #apiKeyOrder}, answered later: the order is placed on the request's thread, the
     * receipt resumed with after {@code delayMs}.
     */
    @POST
    @Path("api-key-order-async/{orderNo}")
    @ApiKeyAuthenticated
    public void apiKeyOrderLater(@PathParam("orderNo") String orderNo, @QueryParam("delayMs") long delayMs,
            @Suspended AsyncResponse response) {
        Receipt receipt = cdi.onOrder(new OrderMessage(orderNo, 1250, 0));
        CompletableFuture.delayedExecutor(delayMs, TimeUnit.MILLISECONDS).execute(() -> response.resume(receipt));
    }

    /**
     * @param probe a request's {@code X-Probe}
     * @return the receipt {@link OrderAfterJaxRs} got for it, {@code 404} until it did
     */
    @GET
    @Path("after-jaxrs/{probe}")
    @Produces(MediaType.TEXT_PLAIN)
    public Response afterJaxRs(@PathParam("probe") String probe) {
        String receipt = OrderAfterJaxRs.RECEIPTS.remove(probe);
        return receipt == null ? Response.status(404).build() : Response.ok(receipt).build();
    }

    @POST
    @Path("ttl/{method}/{key}")
    public Map<String, Integer> ttl(@PathParam("method") String method, @PathParam("key") String key) {
        int result = switch (method) {
            case "global-beats-annotation" -> globalBeatsAnnotation.work(key);
            case "class-beats-global" -> classAndMethod.classLevel(key);
            case "method-beats-class" -> classAndMethod.methodLevel(key);
            default -> throw new IllegalArgumentException(method);
        };
        return Map.of("result", result, "count", effects.count(method));
    }

    @Inject
    TransactionalConsumer transactional;

    @Resource
    UserTransaction transaction;

    @Resource
    TransactionSynchronizationRegistry registry;

    /**
     * Charges the same key twice in one transaction (a batch with a duplicate row), then rolls the
     * transaction back.
     *
     * @return what the second call threw ({@code returned} if nothing), how long it took, and
     *     whether the transaction was rollback-only after it
     */
    @POST
    @Path("transactional-twice/{key}")
    public Map<String, Object> transactionalTwice(@PathParam("key") String key) throws Exception {
        transaction.begin();
        try {
            transactional.charge(key, false);
            long started = System.nanoTime();
            String second = "returned";
            try {
                transactional.charge(key, false);
            } catch (RuntimeException e) {
                second = e.getClass().getName();
            }
            return Map.of("second", second, "millis", (System.nanoTime() - started) / 1_000_000,
                    "rollbackOnly", registry.getTransactionStatus() == Status.STATUS_MARKED_ROLLBACK);
        } finally {
            transaction.rollback();
        }
    }

    @Inject
    Event<AfterFailureConsumer.Compensation> compensations;

    /**
     * Fires a compensation inside a transaction that then rolls back: its AFTER_FAILURE observer
     * runs from the rollback's afterCompletion.
     *
     * @return how many compensations ran so far
     */
    @POST
    @Path("after-failure/{key}")
    public Map<String, Integer> afterFailure(@PathParam("key") String key) throws Exception {
        transaction.begin();
        try {
            compensations.fire(new AfterFailureConsumer.Compensation(key));
        } finally {
            transaction.rollback();
        }
        return Map.of("count", effects.count("after-failure"));
    }

    @POST
    @Path("transactional/{key}")
    public Map<String, Integer> transactional(@PathParam("key") String key, @QueryParam("rollback") boolean rollback) {
        return Map.of("result", transactional.charge(key, rollback), "count", effects.count("transactional"));
    }

    @GET
    @Path("count/{variant}")
    public Map<String, Integer> count(@PathParam("variant") String variant) {
        return Map.of("count", effects.count(variant));
    }
}
