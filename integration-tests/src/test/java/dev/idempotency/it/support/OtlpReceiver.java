package dev.idempotency.it.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;
import java.util.zip.GZIPInputStream;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.trace.v1.Span;

/**
 * A small OTLP/HTTP receiver on loopback, as a collector would be: it takes the spans and metrics a
 * server exports ({@code http/protobuf}, gzip or not) and keeps them for the test to read.
 */
public final class OtlpReceiver implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService threads = Executors.newFixedThreadPool(2);
    private final List<Span> spans = new CopyOnWriteArrayList<>();
    private final List<Metric> metrics = new CopyOnWriteArrayList<>();

    private OtlpReceiver(HttpServer server) {
        this.server = server;
    }

    /** @return a receiver listening on 127.0.0.1, on a free port */
    public static OtlpReceiver start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
            OtlpReceiver receiver = new OtlpReceiver(server);
            server.createContext("/v1/traces", exchange -> receiver.take(exchange, true));
            server.createContext("/v1/metrics", exchange -> receiver.take(exchange, false));
            server.createContext("/v1/logs", exchange -> {
                try (InputStream body = exchange.getRequestBody()) {
                    body.readAllBytes();
                }
                receiver.answer(exchange);
            });
            server.setExecutor(receiver.threads);
            server.start();
            return receiver;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the endpoint to give a server's {@code otel.exporter.otlp.endpoint} */
    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void take(HttpExchange exchange, boolean traces) throws IOException {
        byte[] body;
        try (InputStream raw = exchange.getRequestBody();
                InputStream in = "gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))
                        ? new GZIPInputStream(raw) : raw) {
            body = in.readAllBytes();
        }
        if (traces) {
            // an exporter that retries sends a span again: keep each span once
            ExportTraceServiceRequest.parseFrom(body).getResourceSpansList().forEach(resource -> resource
                    .getScopeSpansList().forEach(scope -> scope.getSpansList().forEach(span -> {
                        if (spans.stream().noneMatch(kept -> kept.getSpanId().equals(span.getSpanId()))) {
                            spans.add(span);
                        }
                    })));
        } else {
            ExportMetricsServiceRequest.parseFrom(body).getResourceMetricsList().forEach(resource -> resource
                    .getScopeMetricsList().forEach(scope -> metrics.addAll(scope.getMetricsList())));
        }
        answer(exchange);
    }

    /**
     * Answers an export whose body was read (and closed): a success with an empty response
     * message. Without an answer an exporter retries and falls behind.
     */
    private void answer(HttpExchange exchange) throws IOException {
        exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
        exchange.sendResponseHeaders(200, -1);
        exchange.close();
    }

    /**
     * @param wanted which spans
     * @param timeout how long to wait for them to be exported
     * @return the spans received that match, once there is one (or none after the timeout)
     */
    public List<Span> awaitSpans(Predicate<Span> wanted, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<Span> found = spans.stream().filter(wanted).toList();
            if (!found.isEmpty() || System.nanoTime() > deadline) {
                return found;
            }
            sleep();
        }
    }

    /**
     * @param name a metric's name
     * @param complete whether an export of it holds what the test waits for
     * @param timeout how long to wait for it
     * @return its latest export, or {@code null} when none came within the timeout
     */
    public Metric awaitMetric(String name, Predicate<Metric> complete, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<Metric> found = metrics.stream().filter(m -> m.getName().equals(name)).toList();
            if (!found.isEmpty() && complete.test(found.get(found.size() - 1))) {
                return found.get(found.size() - 1);
            }
            if (System.nanoTime() > deadline) {
                return found.isEmpty() ? null : found.get(found.size() - 1);
            }
            sleep();
        }
    }

    /** @return every span received so far, a line each: its name, kind and attributes (for a failure's message) */
    public String spanSummary() {
        StringBuilder summary = new StringBuilder();
        for (Span span : spans) {
            summary.append('\n').append(span.getName()).append(' ').append(span.getKind()).append(' ')
                    .append(span.getAttributesList().stream().map(a -> a.getKey() + "=" + a.getValue().toString().trim())
                            .toList())
                    .append(" events ").append(span.getEventsList().stream().map(Span.Event::getName).toList());
        }
        return summary.toString();
    }

    /** @return the names of every metric received so far */
    public List<String> metricNames() {
        return metrics.stream().map(Metric::getName).distinct().sorted().toList();
    }

    private static void sleep() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
