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
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
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
        await(() -> count(path) >= atLeast ? Boolean.TRUE : null, Duration.ofSeconds(20), path + " did not reach " + atLeast);
    }

    /**
     * Waits until a GET of a path answers {@code 200}: what the server keeps once work it does
     * after its answer is done.
     *
     * @param path the path
     * @param atMost how long to wait for it
     * @return that answer
     */
    public HttpResponse<byte[]> awaitOk(String path, Duration atMost) {
        return await(() -> {
            HttpResponse<byte[]> answer = send(request(path).GET().build());
            return answer.statusCode() == 200 ? answer : null;
        }, atMost, path + " did not answer 200");
    }

    /** @return what {@code probe} answers first other than {@code null}, asked every 20 ms until {@code atMost} passed */
    private static <T> T await(Supplier<T> probe, Duration atMost, String failure) {
        long deadline = System.nanoTime() + atMost.toNanos();
        for (T found = probe.get(); ; found = probe.get()) {
            if (found != null) {
                return found;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(failure + " within " + atMost.toSeconds() + " s");
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
     * Sends the same POST from {@code count} threads released at once (their own pool, not the
     * HttpClient's), for storms of identical requests.
     *
     * @param path the path
     * @param key the Idempotency-Key
     * @param json the body
     * @param count how many
     * @return the answers, in the order the requests were prepared
     * @throws Exception when a request fails or takes longer than 120 s
     */
    public List<HttpResponse<byte[]>> postAllAtOnce(String path, String key, String json, int count) throws Exception {
        return postAllAtOnce(List.of(this), path, key, json, count);
    }

    /**
     * Sends the same POST from {@code count} threads released at once, spread in turn over
     * several servers (request {@code i} to {@code targets[i % targets.size()]}).
     *
     * @param targets the servers
     * @param path the path
     * @param key the Idempotency-Key
     * @param json the body
     * @param count how many
     * @return the answers, in the order the requests were prepared
     * @throws Exception when a request fails or takes longer than 120 s
     */
    public static List<HttpResponse<byte[]>> postAllAtOnce(List<Http> targets, String path, String key, String json,
            int count) throws Exception {
        List<Callable<HttpResponse<byte[]>>> requests = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Http target = targets.get(i % targets.size());
            requests.add(() -> target.postJson(path, key, json));
        }
        return allAtOnce(requests);
    }

    /**
     * Sends one POST without key or body to each path, each from its own thread, all released at once.
     *
     * @param paths the paths, relative to the deployment
     * @return the answers, in the order of the paths
     * @throws Exception when a request fails or takes longer than 120 s
     */
    public List<HttpResponse<byte[]>> postEachAtOnce(List<String> paths) throws Exception {
        List<Callable<HttpResponse<byte[]>>> requests = new ArrayList<>();
        for (String path : paths) {
            requests.add(() -> postJson(path, null, ""));
        }
        return allAtOnce(requests);
    }

    private static List<HttpResponse<byte[]>> allAtOnce(List<Callable<HttpResponse<byte[]>>> requests) throws Exception {
        ExecutorService senders = Executors.newFixedThreadPool(requests.size());
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<HttpResponse<byte[]>>> futures = new ArrayList<>();
            for (Callable<HttpResponse<byte[]>> request : requests) {
                futures.add(senders.submit(() -> {
                    start.await();
                    return request.call();
                }));
            }
            start.countDown();
            List<HttpResponse<byte[]>> answers = new ArrayList<>();
            for (Future<HttpResponse<byte[]>> future : futures) {
                answers.add(future.get(120, TimeUnit.SECONDS));
            }
            return answers;
        } finally {
            senders.shutdownNow();
        }
    }

    /**
     * Polls a status URL until its JSON says {@code "state":"DONE"}; bounded.
     *
     * @param path the status path, relative to the deployment
     * @param timeout the longest wait
     * @return the final status
     */
    public String awaitDone(String path, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String status = "";
        while (System.nanoTime() < deadline) {
            status = text(send(request(path).GET().build()));
            if (status.contains("\"state\":\"DONE\"")) {
                return status;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new AssertionError(path + " not DONE within " + timeout + ": " + status);
    }

    /**
     * @param accepted a 202 answer with a {@code Location}
     * @return the location's path relative to the deployment ({@code api/...})
     */
    public static String location(HttpResponse<byte[]> accepted) {
        String location = accepted.headers().firstValue("Location").orElseThrow();
        return location.substring(location.indexOf("api/"));
    }

    /**
     * @param response a response
     * @return its body as UTF-8
     */
    public static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    /**
     * @param json a JSON report of the sample's, e.g. a consumer harness's or the import activity
     * @param field the name of one of its whole-number fields
     * @return that field's value; fails when the report has no such field
     */
    public static int number(String json, String field) {
        Matcher matcher = Pattern.compile("\"" + field + "\"\\s*:\\s*(\\d+)").matcher(json);
        assertThat(matcher.find()).as(field + " in " + json).isTrue();
        return Integer.parseInt(matcher.group(1));
    }
}
