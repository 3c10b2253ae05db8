package dev.idempotency.cdi;

import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;

import dev.idempotency.IdempotencyEvent;
import dev.idempotency.IdempotencyOutcome;

/**
 * Counts outcomes in the application's MicroProfile Metrics registry: one counter
 * {@value #NAME} per endpoint and outcome ({@code idempotency_outcomes_total{endpoint=..., outcome="replayed"}}
 * in Prometheus form). A bean only when the server has MicroProfile Metrics: the extension adds
 * it then (it has no bean-defining annotation, so that discovery never loads it where the API is
 * missing); the library runs unchanged without it. The registry comes through a field injection
 * point because some servers' producers (Payara's) need one.
 */
public class MicroProfileMetricsCounters implements EventListeners.ConnectedListener {

    /** The counter's name. */
    static final String NAME = "idempotency.outcomes";

    private static final IdempotencyOutcome[] OUTCOMES = IdempotencyOutcome.values();

    /** Through {@link Instance}: a server whose Metrics is switched off has no registry bean. */
    @Inject
    Instance<MetricRegistry> registries;

    private MetricRegistry registry;

    private final Metadata metadata = Metadata.builder().withName(NAME)
            .withDescription("Outcomes of @Idempotent methods: claimed, completed, replayed, conflict, mismatch,"
                    + " outcome_lost, released, store_failure")
            .build();
    /** Per endpoint, the counters by outcome ordinal: looked up in the registry once each. */
    private final ConcurrentHashMap<String, AtomicReferenceArray<Counter>> counters = new ConcurrentHashMap<>();


    /** @return whether the application's registry could be obtained (else nothing is counted) */
    @Override
    public boolean connect() {
        if (registries.isResolvable()) {
            registry = registries.get();
        }
        return registry != null;
    }

    @Override
    public void accept(IdempotencyEvent event) {
        AtomicReferenceArray<Counter> byOutcome = counters.computeIfAbsent(event.endpoint(),
                e -> new AtomicReferenceArray<>(OUTCOMES.length));
        int index = event.outcome().ordinal();
        Counter counter = byOutcome.get(index);
        if (counter == null) {
            // A race registers the same counter twice: the registry returns the existing one.
            counter = registry.counter(metadata, new Tag("endpoint", event.endpoint()),
                    new Tag("outcome", event.outcome().name().toLowerCase(Locale.ROOT)));
            byOutcome.set(index, counter);
        }
        counter.inc();
    }
}
