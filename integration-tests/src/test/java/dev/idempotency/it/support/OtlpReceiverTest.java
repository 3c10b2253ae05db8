package dev.idempotency.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.zip.GZIPOutputStream;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import org.junit.jupiter.api.Test;

/**
 * The test's OTLP receiver answers every export as a collector does: an exporter that gets no
 * answer retries, sends the same spans again and falls behind, so the spans a test waits for come
 * late or not at all (TelemetryIT on WildFly, CI of stop 33: the replay's span never came in 20 s).
 */
class OtlpReceiverTest {

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static byte[] spans(String name) {
        Span span = Span.newBuilder().setName(name).setSpanId(ByteString.copyFromUtf8("12345678"))
                .setTraceId(ByteString.copyFromUtf8("1234567890abcdef")).build();
        return ExportTraceServiceRequest.newBuilder().addResourceSpans(ResourceSpans.newBuilder()
                .addScopeSpans(ScopeSpans.newBuilder().addSpans(span))).build().toByteArray();
    }

    private HttpResponse<byte[]> export(OtlpReceiver receiver, String path, byte[] body, boolean gzip)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(receiver.endpoint() + path))
                .timeout(Duration.ofSeconds(5)).header("Content-Type", "application/x-protobuf");
        if (gzip) {
            ByteArrayOutputStream zipped = new ByteArrayOutputStream();
            try (GZIPOutputStream out = new GZIPOutputStream(zipped)) {
                out.write(body);
            }
            body = zipped.toByteArray();
            request.header("Content-Encoding", "gzip");
        }
        return client.send(request.POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    @Test
    void anExportOfSpansIsAnsweredWith200AndEachSpanKeptOnce() throws Exception {
        try (OtlpReceiver receiver = OtlpReceiver.start()) {
            assertThat(export(receiver, "/v1/traces", spans("payment"), false).statusCode()).isEqualTo(200);
            assertThat(export(receiver, "/v1/traces", spans("payment"), true).statusCode()).isEqualTo(200);

            assertThat(receiver.awaitSpans(span -> true, Duration.ZERO)).extracting(Span::getName)
                    .containsExactly("payment");
        }
    }

    @Test
    void anExportOfMetricsIsAnsweredWith200() throws Exception {
        try (OtlpReceiver receiver = OtlpReceiver.start()) {
            assertThat(export(receiver, "/v1/metrics", new byte[0], false).statusCode()).isEqualTo(200);
            assertThat(receiver.metricNames()).isEmpty();
        }
    }
}
