package dev.idempotency.it.consumers;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.RequestScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import dev.idempotency.IdempotencyConflictException;

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
    CdiOrderConsumer cdi;

    @Inject
    EjbOrderConsumer ejb;

    @Inject
    SingletonOrderConsumer singleton;

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
            case "observer" -> message -> {
                events.fire(message);
                return "handled";
            };
            default -> throw new IllegalArgumentException(variant);
        };
    }

    /**
     * Delivers one message {@code times} times: the first {@code concurrent} at once, the rest one
     * after the other, and reports what the callers got.
     */
    @POST
    @Path("deliver/{variant}")
    public Map<String, Object> deliver(@PathParam("variant") String variant, @QueryParam("orderNo") String orderNo,
            @QueryParam("times") int times, @QueryParam("concurrent") int concurrent,
            @QueryParam("delayMs") long delayMs) throws Exception {
        Function<OrderMessage, Object> consumer = consumer(variant);
        OrderMessage message = new OrderMessage(orderNo, 1250, delayMs);
        int before = effects.count(variant);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Object>> burst = new ArrayList<>();
        for (int i = 0; i < concurrent; i++) {
            Callable<Object> delivery = () -> {
                start.await();
                return deliverOnce(consumer, message);
            };
            burst.add(executor.submit(delivery));
        }
        start.countDown();
        List<Object> answers = new ArrayList<>();
        for (Future<Object> future : burst) {
            answers.add(future.get(60, TimeUnit.SECONDS));
        }
        for (int i = concurrent; i < times; i++) {
            answers.add(deliverOnce(consumer, message));
        }
        Object last = deliverOnce(consumer, message); // after the storm: always the stored result
        int conflicts = 0;
        int equal = 0;
        List<String> errors = new ArrayList<>();
        for (Object answer : answers) {
            if (answer instanceof IdempotencyConflictException) {
                conflicts++;
            } else if (answer instanceof Throwable failure) {
                errors.add(failure.toString());
            } else if (Objects.equals(answer, last)) {
                equal++;
            } else {
                errors.add("differs: " + answer + " vs " + last);
            }
        }
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("executions", effects.count(variant) - before);
        report.put("equalResults", equal);
        report.put("conflicts", conflicts);
        report.put("errors", errors);
        report.put("result", String.valueOf(last));
        return report;
    }

    private static Object deliverOnce(Function<OrderMessage, Object> consumer, OrderMessage message) {
        try {
            return consumer.apply(message);
        } catch (RuntimeException e) {
            Throwable cause = e;
            while (cause.getCause() != null && !(cause instanceof IdempotencyConflictException)) {
                cause = cause.getCause(); // EJBs may wrap it
            }
            return cause instanceof IdempotencyConflictException ? cause : e;
        }
    }

    /** Calls the CDI consumer straight from a resource: its exceptions reach JAX-RS. */
    @POST
    @Path("order/{orderNo}")
    public Receipt order(@PathParam("orderNo") String orderNo, @QueryParam("delayMs") long delayMs) {
        return cdi.onOrder(new OrderMessage(orderNo, 1250, delayMs));
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

    @GET
    @Path("count/{variant}")
    public Map<String, Integer> count(@PathParam("variant") String variant) {
        return Map.of("count", effects.count(variant));
    }
}
