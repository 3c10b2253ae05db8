package dev.idempotency.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A small HTTP client for the tests, bound to loopback. */
public final class Http {

    private static final Pattern COUNT = Pattern.compile("\"count\"\\s*:\\s*(\\d+)");

    private final HttpClient client = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(10))
            .version(HttpClient.Version.HTTP_1_1)
            .build();
    private final URI base;

    /**
     * @param deploymentUrl the URL Arquillian gives; it must be loopback
     */
    public Http(URL deploymentUrl) {
        String host = deploymentUrl.getHost();
        assertThat(host).as("tests only talk to loopback").isIn("localhost", "127.0.0.1");
        this.base = URI.create(deploymentUrl.toString().endsWith("/") ? deploymentUrl.toString() : deploymentUrl + "/");
    }

    /** @return the base URI of the deployment */
    public URI base() {
        return base;
    }

    /** @return a fresh key */
    public static String newKey() {
        return UUID.randomUUID().toString();
    }

    /**
     * @param path a path relative to the deployment, e.g. {@code api/payments}
     * @return a request builder for it
     */
    public HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(60));
    }

    /**
     * @param path the path
     * @param key the Idempotency-Key, or {@code null} for none
     * @param json the body
     * @param user a demo user (its password is its name), or {@code null} for anonymous
     * @return the response
     */
    public HttpResponse<byte[]> postJson(String path, String key, String json, String user) {
        HttpRequest.Builder builder = request(path)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (key != null) {
            builder.header("Idempotency-Key", key);
        }
        if (user != null) {
            builder.header("Authorization", "Basic "
                    + Base64.getEncoder().encodeToString((user + ":" + user).getBytes(StandardCharsets.UTF_8)));
        }
        return send(builder.build());
    }

    /**
     * @param path the path
     * @param key the Idempotency-Key
     * @param json the body
     * @return the anonymous caller's response
     */
    public HttpResponse<byte[]> postJson(String path, String key, String json) {
        return postJson(path, key, json, null);
    }

    /**
     * @param request a request
     * @return its response, body as bytes
     */
    public HttpResponse<byte[]> send(HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * @param path a path answering {@code {"count":N}}
     * @return N
     */
    public long count(String path) {
        String body = text(send(request(path).GET().build()));
        Matcher matcher = COUNT.matcher(body);
        assertThat(matcher.find()).as("a count in " + body).isTrue();
        return Long.parseLong(matcher.group(1));
    }

    /**
     * Waits until a counter reaches a value: the slow first request has started, so a duplicate
     * sent now meets its claim. Bounded; no fixed sleep that a loaded machine could outrun.
     *
     * @param path a path answering {@code {"count":N}}
     * @param atLeast the value to reach
     */
    public void awaitCount(String path, long atLeast) {
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(20).toNanos();
        while (count(path) < atLeast) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(path + " did not reach " + atLeast + " within 20 s");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * @param response a response
     * @return its body as UTF-8
     */
    public static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }
}
