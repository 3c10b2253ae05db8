package dev.idempotency.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.Idempotent;

/**
 * The outcomes as OpenTelemetry exports them, in a real CDI container with the OpenTelemetry SDK
 * as the application's {@code OpenTelemetry} bean (as MicroProfile Telemetry provides it): the
 * attributes and events on the caller's span, and the counter.
 */
class OpenTelemetryOutcomesTest {

    private static final String ENDPOINT = Payments.class.getName() + "#pay(java.lang.String,int)";

    @ApplicationScoped
    public static class Payments {
        final AtomicInteger executions = new AtomicInteger();

        @Idempotent
        public int pay(@IdempotencyKey String id, int cents) {
            return executions.incrementAndGet();
        }
    }

    /** The SDK with in-memory exporters, produced as MicroProfile Telemetry produces its {@code OpenTelemetry}. */
    @ApplicationScoped
    public static class Telemetry {
        final InMemorySpanExporter spans = InMemorySpanExporter.create();
        final InMemoryMetricReader metrics = InMemoryMetricReader.create();
        final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
                .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
                .build();

        @Produces
        @ApplicationScoped
        OpenTelemetry openTelemetry() {
            return sdk;
        }

        /* Methods, not fields: the test holds a client proxy. */
        OpenTelemetrySdk sdk() {
            return sdk;
        }

        InMemorySpanExporter spans() {
            return spans;
        }

        InMemoryMetricReader metrics() {
            return metrics;
        }
    }

    private static int callInSpan(Telemetry telemetry, String name, Payments payments, String key) {
        Span span = telemetry.sdk().getTracer("test").spanBuilder(name).startSpan();
        try (Scope scope = span.makeCurrent()) {
            return payments.pay(key, 100);
        } finally {
            span.end();
        }
    }

    private static SpanData span(Telemetry telemetry, String name) {
        return telemetry.spans().getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).findFirst()
                .orElseThrow();
    }

    private static Map<String, Long> counted(Telemetry telemetry) {
        MetricData counter = telemetry.metrics().collectAllMetrics().stream()
                .filter(m -> m.getName().equals(OpenTelemetryOutcomes.COUNTER)).findFirst().orElseThrow();
        assertThat(counter.getInstrumentationScopeInfo().getName()).isEqualTo(OpenTelemetryOutcomes.SCOPE);
        return counter.getLongSumData().getPoints().stream()
                .filter(p -> ENDPOINT.equals(p.getAttributes().get(AttributeKey.stringKey("endpoint"))))
                .collect(Collectors.toMap(p -> p.getAttributes().get(AttributeKey.stringKey("outcome")), LongPointData::getValue));
    }

    @Test
    void aFirstExecutionAndItsReplayAreOnTheirSpansAndCountedWithoutTheKey() {
        try (WeldContainer container = TestContainers.weld(Payments.class, Telemetry.class).initialize()) {
            Payments payments = container.select(Payments.class).get();
            Telemetry telemetry = container.select(Telemetry.class).get();

            assertThat(callInSpan(telemetry, "first", payments, "order-secret-1")).isEqualTo(1);
            assertThat(callInSpan(telemetry, "retry", payments, "order-secret-1")).isEqualTo(1);

            SpanData first = span(telemetry, "first");
            assertThat(first.getAttributes().get(AttributeKey.stringKey(OpenTelemetryOutcomes.OUTCOME))).isEqualTo("completed");
            assertThat(first.getAttributes().get(AttributeKey.booleanKey(OpenTelemetryOutcomes.REPLAYED))).isFalse();
            assertThat(first.getAttributes().get(AttributeKey.stringKey(OpenTelemetryOutcomes.ENDPOINT))).isEqualTo(ENDPOINT);
            String keyHash = first.getAttributes().get(AttributeKey.stringKey(OpenTelemetryOutcomes.KEY_HASH));
            assertThat(keyHash).hasSize(12);
            assertThat(first.getEvents()).extracting(EventData::getName)
                    .containsExactly("idempotency.claimed", "idempotency.completed");

            SpanData retry = span(telemetry, "retry");
            assertThat(retry.getAttributes().get(AttributeKey.stringKey(OpenTelemetryOutcomes.OUTCOME))).isEqualTo("replayed");
            assertThat(retry.getAttributes().get(AttributeKey.booleanKey(OpenTelemetryOutcomes.REPLAYED))).isTrue();
            assertThat(retry.getAttributes().get(AttributeKey.stringKey(OpenTelemetryOutcomes.KEY_HASH))).isEqualTo(keyHash);
            assertThat(retry.getEvents()).extracting(EventData::getName).containsExactly("idempotency.replayed");
            assertThat(List.of(first, retry)).allSatisfy(span -> assertThat(span.getAttributes().asMap().values())
                    .as("the client's key is never exported").noneMatch(value -> value.toString().contains("order-secret")));

            assertThat(counted(telemetry)).containsExactlyInAnyOrderEntriesOf(
                    Map.of("claimed", 1L, "completed", 1L, "replayed", 1L));
        }
    }

    @Test
    void everyStoreOperationIsTimedAndOneAtLeastTheThresholdLongIsAnEventOnTheSpan() {
        System.setProperty("idempotency.telemetry.slow-store-threshold", "PT0S");
        try (WeldContainer container = TestContainers.weld(Payments.class, Telemetry.class).initialize()) {
            Payments payments = container.select(Payments.class).get();
            Telemetry telemetry = container.select(Telemetry.class).get();

            callInSpan(telemetry, "timed", payments, "order-4");

            SpanData timed = span(telemetry, "timed");
            assertThat(timed.getEvents()).filteredOn(event -> event.getName().equals(OpenTelemetryOutcomes.SLOW_STORE))
                    .extracting(event -> event.getAttributes().get(AttributeKey.stringKey("operation")))
                    .as("every operation is at least 0 s long").contains("claim", "complete");
            MetricData durations = telemetry.metrics().collectAllMetrics().stream()
                    .filter(m -> m.getName().equals(OpenTelemetryOutcomes.STORE_DURATION)).findFirst().orElseThrow();
            assertThat(durations.getUnit()).isEqualTo("s");
            assertThat(durations.getHistogramData().getPoints())
                    .extracting(point -> point.getAttributes().get(AttributeKey.stringKey("operation")))
                    .contains("claim", "complete");
            assertThat(durations.getHistogramData().getPoints()).allSatisfy(point -> {
                assertThat(point.getCount()).isPositive();
                assertThat(point.getAttributes().get(AttributeKey.booleanKey("failed"))).isFalse();
            });
        } finally {
            System.clearProperty("idempotency.telemetry.slow-store-threshold");
        }
    }

    @Test
    void aCallOutsideAnySpanIsStillCountedAndTheSwitchTurnsItAllOff() {
        try (WeldContainer container = TestContainers.weld(Payments.class, Telemetry.class).initialize()) {
            Payments payments = container.select(Payments.class).get();
            Telemetry telemetry = container.select(Telemetry.class).get();

            payments.pay("order-2", 100);

            assertThat(counted(telemetry)).containsEntry("completed", 1L);
            assertThat(telemetry.spans().getFinishedSpanItems()).isEmpty();
        }
        System.setProperty("idempotency.telemetry.enabled", "false");
        try (WeldContainer container = TestContainers.weld(Payments.class, Telemetry.class).initialize()) {
            Payments payments = container.select(Payments.class).get();
            Telemetry telemetry = container.select(Telemetry.class).get();

            callInSpan(telemetry, "off", payments, "order-3");

            assertThat(span(telemetry, "off").getAttributes().asMap()).isEmpty();
            assertThat(telemetry.metrics().collectAllMetrics()).isEmpty();
        } finally {
            System.clearProperty("idempotency.telemetry.enabled");
        }
    }
}
