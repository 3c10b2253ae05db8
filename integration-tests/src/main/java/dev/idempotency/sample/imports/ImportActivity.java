package dev.idempotency.sample.imports;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.enterprise.context.ApplicationScoped;

/** What the import workers did in this JVM, for demos and tests. */
@ApplicationScoped
public class ImportActivity {

    private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    private final AtomicLong started = new AtomicLong();
    private final AtomicLong processed = new AtomicLong();
    private final AtomicLong skipped = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();

    /**
     * @param messageId a message
     * @return how many times its processing began in this JVM, this one included
     */
    int attempt(String messageId) {
        started.incrementAndGet();
        return attempts.computeIfAbsent(messageId, id -> new AtomicInteger()).incrementAndGet();
    }

    /**
     * Forgets a message's attempts once it needs none more (processed, or given up), so that the
     * counts stay as many as the messages in flight.
     *
     * @param messageId a message
     */
    void settled(String messageId) {
        attempts.remove(messageId);
    }

    /** @return how many messages' attempts are counted */
    int tracked() {
        return attempts.size();
    }

    void processed() {
        processed.incrementAndGet();
    }

    void skipped() {
        skipped.incrementAndGet();
    }

    void failed() {
        failed.incrementAndGet();
    }

    /** @return the counters: processing started, processed, skipped (another worker held the message), failed */
    public Map<String, Long> counters() {
        return Map.of("started", started.get(), "processed", processed.get(), "skipped", skipped.get(),
                "failed", failed.get());
    }
}
