package dev.idempotency.it.resources;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.enterprise.context.ApplicationScoped;

/** Executions per test endpoint. */
@ApplicationScoped
public class Counters {

    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

    public long increment(String name) {
        return counts.computeIfAbsent(name, n -> new AtomicLong()).incrementAndGet();
    }

    public long get(String name) {
        AtomicLong count = counts.get(name);
        return count == null ? 0 : count.get();
    }
}
