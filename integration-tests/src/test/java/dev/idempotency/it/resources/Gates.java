package dev.idempotency.it.resources;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;

/** Named gates a slow endpoint waits at until the test opens them (bounded: 30 s at most). */
@ApplicationScoped
public class Gates {

    private final ConcurrentHashMap<String, CountDownLatch> gates = new ConcurrentHashMap<>();

    private CountDownLatch gate(String name) {
        return gates.computeIfAbsent(name, n -> new CountDownLatch(1));
    }

    /** @param name the gate to wait at until it is opened, or 30 s have passed */
    public void pass(String name) throws InterruptedException {
        gate(name).await(30, TimeUnit.SECONDS);
    }

    /** @param name the gate to open */
    public void open(String name) {
        gate(name).countDown();
    }
}
