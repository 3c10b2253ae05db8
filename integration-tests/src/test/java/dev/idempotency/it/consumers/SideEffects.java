package dev.idempotency.it.consumers;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;

/** The side effect each consumer variant performs: one increment per execution. */
@ApplicationScoped
public class SideEffects {

    private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

    public int record(String variant, long delayMs) {
        int sequence = counts.computeIfAbsent(variant, v -> new AtomicInteger()).incrementAndGet();
        if (delayMs > 0) {
            try {
                Thread.sleep(delayMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return sequence;
    }

    public int count(String variant) {
        AtomicInteger count = counts.get(variant);
        return count == null ? 0 : count.get();
    }
}
