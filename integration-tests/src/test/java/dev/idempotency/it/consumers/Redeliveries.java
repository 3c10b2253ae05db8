package dev.idempotency.it.consumers;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.idempotency.exceptions.IdempotencyConflictException;

/**
 * Delivers one message many times, the first ones at once, like a redelivering broker, and
 * reports what the side effect and the callers saw.
 */
public final class Redeliveries {

    private Redeliveries() {
    }

    /** One delivery; returns what the consumer returned (or a stand-in for void consumers). */
    @FunctionalInterface
    public interface Delivery {
        Object deliver() throws Exception;
    }

    /**
     * @param executor the managed executor for the concurrent burst
     * @param effects the side-effect counters
     * @param variant the counter of the consumer under test
     * @param delivery one delivery of the message
     * @param times deliveries in all
     * @param concurrent how many of them at once, first
     * @return executions, equal results, conflicts and errors
     * @throws Exception when the harness itself fails
     */
    public static Map<String, Object> run(ExecutorService executor, SideEffects effects, String variant,
            Delivery delivery, int times, int concurrent) throws Exception {
        int before = effects.count(variant);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Object>> burst = new ArrayList<>();
        for (int i = 0; i < concurrent; i++) {
            Callable<Object> once = () -> {
                start.await();
                return deliverOnce(delivery);
            };
            burst.add(executor.submit(once));
        }
        start.countDown();
        List<Object> answers = new ArrayList<>();
        for (Future<Object> future : burst) {
            answers.add(future.get(60, TimeUnit.SECONDS));
        }
        for (int i = concurrent; i < times; i++) {
            answers.add(deliverOnce(delivery));
        }
        Object last = deliverOnce(delivery); // after the storm: always the stored result
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

    private static Object deliverOnce(Delivery delivery) {
        try {
            return delivery.deliver();
        } catch (Exception e) {
            Throwable cause = e;
            while (cause.getCause() != null && !(cause instanceof IdempotencyConflictException)) {
                cause = cause.getCause(); // EJB containers wrap it
            }
            return cause instanceof IdempotencyConflictException ? cause : e;
        }
    }
}
