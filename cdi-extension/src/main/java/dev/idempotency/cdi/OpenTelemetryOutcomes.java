package dev.idempotency.cdi;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.trace.Span;

import dev.idempotency.IdempotencyEvent;
import dev.idempotency.IdempotencyOutcome;
import dev.idempotency.store.TimedStore;

/**
 * Reports outcomes through OpenTelemetry, as MicroProfile Telemetry gives it to the application:
 * on the current span (the server's span of the HTTP request, or the application's own around a
 * non-HTTP call) the attributes {@value #OUTCOME} (the last outcome: {@code completed},
 * {@code replayed}, ...), {@value #REPLAYED}, {@value #ENDPOINT} and {@value #KEY_HASH} (the
 * 12-character prefix of the scoped, hashed key, never the client's key) and one span event
 * {@code idempotency.<outcome>} per outcome; and the counter {@value #COUNTER}, with the attributes
 * {@code endpoint} and {@code outcome}, the names MicroProfile Metrics uses.
 *
 * <p>A bean only when the server has the OpenTelemetry API: the extension adds it then (it has no
 * bean-defining annotation, so that discovery never loads it where the API is missing); the library
 * runs unchanged without it. Decided once, at start-up; with the server's SDK switched off
 * ({@code otel.sdk.disabled=true}, MicroProfile Telemetry's default) the API answers as a no-op.
 */
public class OpenTelemetryOutcomes implements EventListeners.ConnectedListener {

    /** The counter's name, as MicroProfile Metrics names it. */
    static final String COUNTER = "idempotency.outcomes";
    /** The instrumentation scope of the counter. */
    static final String SCOPE = "dev.idempotency";
    static final String OUTCOME = "idempotency.outcome";
    static final String REPLAYED = "idempotency.replayed";
    static final String ENDPOINT = "idempotency.endpoint";
    static final String KEY_HASH = "idempotency.key.hash";

    /** The histogram of the store's latency. */
    static final String STORE_DURATION = "idempotency.store.duration";
    /** The span event of a slow store operation. */
    static final String SLOW_STORE = "idempotency.store.slow";

    private static final AttributeKey<String> STORE_OPERATION = AttributeKey.stringKey("operation");
    private static final AttributeKey<Boolean> STORE_FAILED = AttributeKey.booleanKey("failed");
    private static final AttributeKey<Long> STORE_DURATION_MS = AttributeKey.longKey("duration_ms");
    private static final AttributeKey<String> COUNTER_ENDPOINT = AttributeKey.stringKey("endpoint");
    private static final AttributeKey<String> COUNTER_OUTCOME = AttributeKey.stringKey("outcome");
    private static final IdempotencyOutcome[] OUTCOMES = IdempotencyOutcome.values();
    private static final String[] NAMES = new String[OUTCOMES.length];
    private static final String[] EVENTS = new String[OUTCOMES.length];

    static {
        for (IdempotencyOutcome outcome : OUTCOMES) {
            NAMES[outcome.ordinal()] = outcome.name().toLowerCase(Locale.ROOT);
            EVENTS[outcome.ordinal()] = "idempotency." + NAMES[outcome.ordinal()];
        }
    }

    /** Through {@link Instance}: a server may have the API without an {@code OpenTelemetry} bean. */
    @Inject
    Instance<OpenTelemetry> telemetry;

    private LongCounter counter;
    private Meter meter;

    /** Per endpoint, the counter's attributes by outcome ordinal: built once each. */
    private final ConcurrentHashMap<String, AtomicReferenceArray<Attributes>> attributes = new ConcurrentHashMap<>();

    /** @return whether the application's {@code OpenTelemetry} could be obtained (else nothing is reported) */
    @Override
    public boolean connect() {
        if (!telemetry.isResolvable()) {
            return false;
        }
        meter = telemetry.get().getMeter(SCOPE);
        counter = meter.counterBuilder(COUNTER)
                .setDescription("Outcomes of @Idempotent methods: claimed, completed, replayed, conflict, mismatch,"
                        + " outcome_lost, released, store_failure")
                .setUnit("{outcome}").build();
        return true;
    }

    @Override
    public void accept(IdempotencyEvent event) {
        int index = event.outcome().ordinal();
        counter.add(1, attributesOf(event.endpoint(), index));
        Span span = Span.current();
        if (span.getSpanContext().isValid()) {
            span.setAttribute(OUTCOME, NAMES[index]);
            span.setAttribute(REPLAYED, event.outcome() == IdempotencyOutcome.REPLAYED);
            span.setAttribute(ENDPOINT, event.endpoint());
            span.setAttribute(KEY_HASH, event.keyHash());
            span.addEvent(EVENTS[index]);
        }
    }

    /**
     * The store's latency as the histogram {@value #STORE_DURATION} (seconds; attributes
     * {@code operation} and {@code failed}), and an operation at least {@code slow} long as the event
     * {@value #SLOW_STORE} on the current span (attributes {@code operation}, {@code duration_ms},
     * {@code failed}).
     *
     * @param slow the threshold of the span event; zero: every operation
     * @return where a {@link TimedStore} sends its timings
     */
    TimedStore.Timings storeTimings(Duration slow) {
        DoubleHistogram histogram = meter.histogramBuilder(STORE_DURATION)
                .setDescription("Duration of the idempotency store's operations").setUnit("s").build();
        long slowNanos = slow.toNanos();
        Map<String, Attributes[]> byOperation = new ConcurrentHashMap<>();
        return (operation, nanos, failed) -> {
            Attributes[] both = byOperation.computeIfAbsent(operation, o -> new Attributes[] {
                Attributes.of(STORE_OPERATION, o, STORE_FAILED, false), Attributes.of(STORE_OPERATION, o, STORE_FAILED, true)});
            histogram.record(nanos / 1e9, both[failed ? 1 : 0]);
            if (nanos >= slowNanos) {
                Span span = Span.current();
                if (span.getSpanContext().isValid()) {
                    span.addEvent(SLOW_STORE, Attributes.of(STORE_OPERATION, operation, STORE_DURATION_MS, nanos / 1_000_000L,
                            STORE_FAILED, failed));
                }
            }
        };
    }

    private Attributes attributesOf(String endpoint, int index) {
        AtomicReferenceArray<Attributes> byOutcome = attributes.computeIfAbsent(endpoint,
                e -> new AtomicReferenceArray<>(OUTCOMES.length));
        Attributes found = byOutcome.get(index);
        if (found == null) {
            found = Attributes.of(COUNTER_ENDPOINT, endpoint, COUNTER_OUTCOME, NAMES[index]);
            byOutcome.set(index, found);
        }
        return found;
    }
}
