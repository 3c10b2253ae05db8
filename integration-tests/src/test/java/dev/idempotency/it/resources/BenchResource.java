package dev.idempotency.it.resources;

import java.math.BigDecimal;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import dev.idempotency.Idempotent;

/**
 * The HTTP benchmark's endpoints: the same no-op (and 50 ms) method with and without
 * {@code @Idempotent}, so that the difference between them is the library's cost, and a method
 * that holds its key until released, so that duplicates meet a claim in progress (409).
 */
@Path("bench")
@ApplicationScoped
@Consumes(MediaType.APPLICATION_JSON)
@Produces(MediaType.APPLICATION_JSON)
public class BenchResource {

    /** The answer of every endpoint: the same bytes, so that only the library's work differs. */
    static final String ANSWER = "{\"status\":\"accepted\",\"id\":\"00000000-0000-0000-0000-000000000000\"}";
    static final long SLOW_MS = 50;

    private final AtomicLong executions = new AtomicLong();
    private volatile CountDownLatch release = new CountDownLatch(1);
    private final AtomicLong holding = new AtomicLong();

    /** @return the answer, at once, without the library */
    @POST
    @Path("plain")
    public Response plain(String body) throws InterruptedException {
        return answer(0);
    }

    /** @return the answer, at once, once per key */
    @POST
    @Path("idempotent")
    @Idempotent
    public Response idempotent(String body) throws InterruptedException {
        return answer(0);
    }

    /**
     * @param order the body, bound by JSON-B
     * @return a receipt, serialised by JSON-B: an endpoint's usual work around a no-op, without the library
     */
    @POST
    @Path("plain-json")
    public Receipt plainJson(Order order) {
        executions.incrementAndGet();
        return Receipt.of(order);
    }

    /**
     * @param order the body, bound by JSON-B
     * @return a receipt, serialised by JSON-B, once per key
     */
    @POST
    @Path("idempotent-json")
    @Idempotent
    public Receipt idempotentJson(Order order) {
        executions.incrementAndGet();
        return Receipt.of(order);
    }

    /** The benchmark's body as an object. */
    public static class Order {
        public String orderId;
        public BigDecimal amount;
        public String currency;
    }

    /** The JSON-bound endpoints' answer. */
    public static class Receipt {
        public String status;
        public String id;
        public String orderId;
        public BigDecimal amount;
        public String currency;

        static Receipt of(Order order) {
            Receipt receipt = new Receipt();
            receipt.status = "accepted";
            receipt.id = "00000000-0000-0000-0000-000000000000";
            receipt.orderId = order.orderId;
            receipt.amount = order.amount;
            receipt.currency = order.currency;
            return receipt;
        }
    }

    /** @return the answer after 50 ms, without the library */
    @POST
    @Path("plain-slow")
    public Response plainSlow(String body) throws InterruptedException {
        return answer(SLOW_MS);
    }

    /** @return the answer after 50 ms, once per key */
    @POST
    @Path("idempotent-slow")
    @Idempotent
    public Response idempotentSlow(String body) throws InterruptedException {
        return answer(SLOW_MS);
    }

    /** The work of every endpoint but the hold: counted, then the answer after {@code millis}. */
    private Response answer(long millis) throws InterruptedException {
        executions.incrementAndGet();
        if (millis > 0) {
            Thread.sleep(millis);
        }
        return Response.ok(ANSWER).build();
    }

    /** @return the answer once released (at most 5 minutes): its key stays claimed until then */
    @POST
    @Path("hold")
    @Idempotent
    public Response hold(String body) throws InterruptedException {
        executions.incrementAndGet();
        holding.incrementAndGet();
        try {
            release.await(5, TimeUnit.MINUTES);
        } finally {
            holding.decrementAndGet();
        }
        return Response.ok(ANSWER).build();
    }

    /** Releases the held request(s) and arms the next hold. */
    @POST
    @Path("release")
    public void release() {
        CountDownLatch released = release;
        release = new CountDownLatch(1);
        released.countDown();
    }

    /** @return the executions of every endpoint so far, and the requests being held */
    @GET
    @Path("state")
    public Map<String, Long> state() {
        return Map.of("executions", executions.get(), "holding", holding.get());
    }
}
