package dev.idempotency.sample;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.enterprise.context.ApplicationScoped;

/** How many times each webhook receiver of the sample ran since start, for demos and tests. */
@ApplicationScoped
public class WebhookDeliveries {

    private final Map<String, AtomicLong> executions = new ConcurrentHashMap<>();

    /**
     * Counts one execution of a receiver.
     *
     * @param receiver {@code github}, {@code cloudevents} or {@code stripe}
     * @return the number of this execution of that receiver
     */
    public long countExecution(String receiver) {
        return executions.computeIfAbsent(receiver, r -> new AtomicLong()).incrementAndGet();
    }

    /**
     * @param receiver a receiver
     * @return how many times it ran since start
     */
    public long executions(String receiver) {
        AtomicLong count = executions.get(receiver);
        return count == null ? 0 : count.get();
    }
}
