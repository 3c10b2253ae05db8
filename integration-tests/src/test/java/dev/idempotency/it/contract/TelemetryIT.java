package dev.idempotency.it.contract;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.Http.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.trace.v1.Span;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.OnSampleApp;
import dev.idempotency.it.support.OtlpReceiver;

/**
 * The outcomes as the server's MicroProfile Telemetry exports them, over OTLP to a receiver of the
 * test's own on loopback: a first payment (claimed) and its replay, each on the server's span of its
 * request, with the outcome's attributes and events, and never the client's key.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class TelemetryIT extends OnSampleApp {

    private static final OtlpReceiver RECEIVER = OtlpReceiver.start();
    private static final String ENDPOINT = "dev.idempotency.sample.PaymentResource#create(dev.idempotency.sample.PaymentRequest)";

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleApp("telemetry", String.join("\n",
                "otel.sdk.disabled=false",
                "otel.service.name=payments",
                "otel.traces.exporter=otlp",
                "otel.metrics.exporter=otlp",
                "otel.logs.exporter=none",
                "otel.exporter.otlp.protocol=http/protobuf",
                "otel.exporter.otlp.endpoint=" + RECEIVER.endpoint(),
                "otel.bsp.schedule.delay=100",
                "otel.metric.export.interval=500",
                "idempotency.telemetry.slow-store-threshold=PT0S"));
    }

    /** The outcomes counted per outcome on the payment endpoint, in the counter's latest export. */
    private static Map<String, Long> counted(Metric counter) {
        return counter.getSum().getDataPointsList().stream()
                .filter(point -> point.getAttributesList().stream()
                        .anyMatch(a -> a.getKey().equals("endpoint") && a.getValue().getStringValue().equals(ENDPOINT)))
                .collect(Collectors.toMap(point -> point.getAttributesList().stream().filter(a -> a.getKey().equals("outcome"))
                        .findFirst().orElseThrow().getValue().getStringValue(), NumberDataPoint::getAsInt, (a, b) -> b));
    }

    /**
     * The counter and the store's latency as the server exports them, where its MicroProfile
     * Telemetry exports metrics (2.0: WildFly, Open Liberty; Payara 6's 1.1 exports traces only).
     */
    @Test
    void theOutcomesAreCountedAndTheStoreTimedInTheExportedMetrics() throws InterruptedException {
        String server = System.getProperty("it.server", "payara");
        assumeTrue(server.equals("wildfly") || server.equals("liberty"),
                "Payara 6's MicroProfile Telemetry 1.1 exports no metrics");
        String key = newKey();
        String body = "{\"orderId\":\"otel-" + UUID.randomUUID() + "\",\"amount\":700,\"currency\":\"EUR\"}";
        assertThat(http.postJson(PAYMENTS, key, body).statusCode()).isEqualTo(201);
        assertThat(http.postJson(PAYMENTS, key, body).headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(http.postJson(PAYMENTS, key, body.replace("700", "701")).statusCode()).as("another body").isEqualTo(422);
        String failing = "{\"orderId\":\"otel-" + UUID.randomUUID() + "\",\"amount\":1,\"currency\":\"EUR\","
                + "\"simulateStatus\":500}";
        assertThat(http.postJson(PAYMENTS, newKey(), failing).statusCode()).as("a 5xx releases its key").isEqualTo(500);
        String slowKey = newKey();
        String slow = "{\"orderId\":\"otel-" + UUID.randomUUID() + "\",\"amount\":1,\"currency\":\"EUR\",\"delayMs\":1500}";
        CompletableFuture<HttpResponse<byte[]>> first = CompletableFuture.supplyAsync(() -> http.postJson(PAYMENTS, slowKey, slow));
        Thread.sleep(300); // the first request is running (it waits 1.5 s) when the duplicate comes
        HttpResponse<byte[]> duplicate = http.postJson(PAYMENTS, slowKey, slow);
        assertThat(List.of(first.join().statusCode(), duplicate.statusCode())).as("one runs, the other meets it running")
                .containsExactlyInAnyOrder(201, 409);

        Map<String, Long> expected = Map.of("claimed", 3L, "completed", 2L, "replayed", 1L, "mismatch", 1L, "released", 1L,
                "conflict", 1L);
        Metric counter = RECEIVER.awaitMetric("idempotency.outcomes", metric -> metric.hasSum() && expected.entrySet()
                .stream().allMatch(e -> counted(metric).getOrDefault(e.getKey(), 0L) >= e.getValue()), Duration.ofSeconds(20));
        assertThat(counter).as("exported: " + RECEIVER.metricNames()).isNotNull();
        assertThat(counted(counter)).as("each outcome counted at least as often as caused")
                .allSatisfy((outcome, count) -> assertThat(count).isGreaterThanOrEqualTo(expected.getOrDefault(outcome, 0L)))
                .containsKeys(expected.keySet().toArray(String[]::new));
        Metric durations = RECEIVER.awaitMetric("idempotency.store.duration", Metric::hasHistogram, Duration.ofSeconds(10));
        assertThat(durations.getUnit()).isEqualTo("s");
        assertThat(durations.getHistogram().getDataPointsList())
                .extracting(point -> point.getAttributesList().stream().filter(a -> a.getKey().equals("operation"))
                        .findFirst().orElseThrow().getValue().getStringValue())
                .contains("claim", "complete");
        System.out.println("TelemetryIT on " + System.getProperty("it.server") + ", the outcomes counted on the payment"
                + " endpoint as exported: " + counted(counter));
    }

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
    }

    private static Map<String, AnyValue> attributes(Span span) {
        return span.getAttributesList().stream().collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue, (a, b) -> b));
    }

    private static String string(Span span, String key) {
        AnyValue value = attributes(span).get(key);
        return value == null ? null : value.getStringValue();
    }

    @Test
    void aPaymentAndItsReplayAreOnTheirRequestsSpansWithoutTheKey() {
        String key = newKey();
        String orderId = "otel-" + UUID.randomUUID();
        String body = "{\"orderId\":\"" + orderId + "\",\"amount\":1250,\"currency\":\"EUR\"}";
        HttpResponse<byte[]> first = http.postJson(PAYMENTS, key, body);
        assertThat(first.statusCode()).as(text(first)).isEqualTo(201);
        HttpResponse<byte[]> replay = http.postJson(PAYMENTS, key, body);
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");

        List<Span> spans = RECEIVER.awaitSpans(span -> "replayed".equals(string(span, "idempotency.outcome")),
                Duration.ofSeconds(20));
        assertThat(spans).as("the replay's span, exported; received:" + RECEIVER.spanSummary()).hasSize(1);
        Span replayed = spans.get(0);
        String keyHash = string(replayed, "idempotency.key.hash");
        Span claimed = RECEIVER.awaitSpans(span -> span != replayed && keyHash.equals(string(span, "idempotency.key.hash")),
                Duration.ofSeconds(10)).get(0);
        assertThat(claimed.getKind()).as("the server's span of the request").isEqualTo(Span.SpanKind.SPAN_KIND_SERVER);
        assertThat(string(claimed, "idempotency.endpoint")).isEqualTo(ENDPOINT);
        assertThat(attributes(claimed).get("idempotency.replayed").getBoolValue()).isFalse();
        // the completion is stored once the response is written: on Payara its span has ended by then
        assertThat(claimed.getEventsList()).extracting(Span.Event::getName)
                .filteredOn(name -> !name.equals("idempotency.store.slow")).first().isEqualTo("idempotency.claimed");
        assertThat(claimed.getEventsList()).as("every store operation is slow at a threshold of 0 s")
                .filteredOn(event -> event.getName().equals("idempotency.store.slow"))
                .extracting(event -> event.getAttributesList().stream().filter(a -> a.getKey().equals("operation"))
                        .findFirst().orElseThrow().getValue().getStringValue())
                .contains("claim");
        assertThat(string(claimed, "idempotency.outcome")).isIn("claimed", "completed");
        assertThat(replayed.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_SERVER);
        assertThat(attributes(replayed).get("idempotency.replayed").getBoolValue()).isTrue();
        assertThat(replayed.getEventsList()).extracting(Span.Event::getName)
                .filteredOn(name -> !name.equals("idempotency.store.slow")).containsExactly("idempotency.replayed");
        assertThat(keyHash).hasSize(12);
        assertThat(List.of(claimed, replayed)).allSatisfy(span -> assertThat(span.toString())
                .as("the client's key is never exported").doesNotContain(key));
        System.out.println("TelemetryIT on " + System.getProperty("it.server", "payara") + ", the replay's span as exported:\n"
                + replayed);
    }
}
