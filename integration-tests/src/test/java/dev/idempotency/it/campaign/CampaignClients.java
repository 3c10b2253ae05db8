package dev.idempotency.it.campaign;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.idempotency.it.support.Http;
import dev.idempotency.it.support.Problems;

/**
 * The campaign's clients: each sends payments, one after the other, through a node picked at
 * random per attempt among those a load balancer would use ({@link CampaignNode#serving()}), and
 * retries like a real client: on no answer (refused, reset, timed out), {@code 409} and a 5xx,
 * the same key and the same body, with a growing back-off, until it
 * gets a definitive answer or its time runs out. Some operations reuse a key that already got its
 * payment, with another body (another order): that body must never run. Everything is recorded
 * as {@link Operation}s for the checker.
 */
final class CampaignClients {

    private static final Pattern PROBLEM_TYPE = Pattern.compile("\"type\"\\s*:\\s*\"" + Pattern.quote(Problems.PROBLEM)
            + "([a-z-]+)\"");
    /** Shorter than a node's pause and the store's, so that a client gives up and retries elsewhere. */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(3);
    /** How long one operation retries before its client moves on (its outcome left indefinite). */
    static final Duration OPERATION_BUDGET = Duration.ofSeconds(30);

    private final List<CampaignNode> nodes;
    private final String contextRoot;
    private final String orderPrefix;
    private final long seed;
    private final double reuseShare;
    private final List<Operation> operations = new CopyOnWriteArrayList<>();
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1))
            .build();
    private volatile boolean stopped;

    /**
     * @param nodes the nodes (loopback, a port each keeps when restarted)
     * @param contextRoot the application's context root on them
     * @param orderPrefix the start of every order id of this campaign
     * @param seed seeds each client's choices (client {@code i} uses {@code seed + i})
     * @param reuseShare the share of operations that reuse a completed key with another body
     */
    CampaignClients(List<CampaignNode> nodes, String contextRoot, String orderPrefix, long seed, double reuseShare) {
        nodes.forEach(node -> {
            if (!"127.0.0.1".equals(node.base(contextRoot).getHost())) {
                throw new IllegalArgumentException("campaigns only talk to loopback: " + node.base(contextRoot));
            }
        });
        this.contextRoot = contextRoot;
        this.nodes = List.copyOf(nodes);
        this.orderPrefix = orderPrefix;
        this.seed = seed;
        this.reuseShare = reuseShare;
    }

    /**
     * Runs the clients for as long as {@code more} says; an operation still retrying then is left
     * as it is (indefinite) for {@link #resolve}.
     *
     * @param clients how many clients at once
     * @param more asked before each operation: whether to go on
     * @param limit a bound, whatever {@code more} says
     * @throws Exception when a client failed (not a request: those are recorded)
     */
    void run(int clients, BooleanSupplier more, Duration limit) throws Exception {
        long end = System.nanoTime() + limit.toNanos();
        ExecutorService threads = Executors.newFixedThreadPool(clients);
        try {
            List<Future<?>> all = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                int client = i;
                all.add(threads.submit(() -> {
                    client(client, more, end);
                    return null;
                }));
            }
            for (Future<?> client : all) {
                client.get(limit.toSeconds() + OPERATION_BUDGET.toSeconds() + 60, TimeUnit.SECONDS);
            }
        } finally {
            stopped = true;
            threads.shutdownNow();
        }
    }

    /**
     * Once the faults have ended and healed: retries every operation that has no definitive answer
     * yet (the final reads), so that each key's fate is known.
     *
     * @param clients how many at once
     * @param limit the longest it may take in all
     * @throws Exception when a client failed
     */
    void resolve(int clients, Duration limit) throws Exception {
        stopped = false;
        long end = System.nanoTime() + limit.toNanos();
        List<Operation> open = operations.stream().filter(op -> op.outcome().isEmpty()).toList();
        ExecutorService threads = Executors.newFixedThreadPool(clients);
        try {
            List<Future<?>> all = new ArrayList<>();
            for (int i = 0; i < open.size(); i++) {
                Operation op = open.get(i);
                Random random = new Random(seed ^ i);
                all.add(threads.submit(() -> {
                    drive(op, random, end);
                    return null;
                }));
            }
            for (Future<?> done : all) {
                done.get(limit.toSeconds() + 30, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    /** @return every operation sent, in the order they began */
    List<Operation> operations() {
        return List.copyOf(operations);
    }

    private void client(int client, BooleanSupplier more, long end) throws InterruptedException {
        Random random = new Random(seed + client);
        List<Operation> paid = new ArrayList<>();
        int n = 0;
        while (!stopped && more.getAsBoolean() && System.nanoTime() < end) {
            Operation op;
            if (!paid.isEmpty() && random.nextDouble() < reuseShare) {
                Operation first = paid.get(random.nextInt(paid.size()));
                String orderId = first.orderId + "-other-" + n++;
                op = new Operation(client, first.key, orderId, body(orderId, random), first.orderId);
            } else {
                String orderId = orderPrefix + client + "-" + n++;
                op = new Operation(client, Http.newKey(), orderId, body(orderId, random), null);
            }
            operations.add(op);
            drive(op, random, Math.min(end, System.nanoTime() + OPERATION_BUDGET.toNanos()));
            if (!op.reuse() && op.outcome().filter(Operation.Attempt::success).isPresent()) {
                paid.add(op);
            }
        }
    }

    private static String body(String orderId, Random random) {
        // a third of the payments take a while, so that faults land mid-request
        int delayMs = random.nextInt(3) == 0 ? 50 + random.nextInt(400) : 0;
        return "{\"orderId\":\"" + orderId + "\",\"amount\":" + (1 + random.nextInt(9999)) + ",\"currency\":\"EUR\""
                + (delayMs > 0 ? ",\"delayMs\":" + delayMs : "") + "}";
    }

    private void drive(Operation op, Random random, long until) throws InterruptedException {
        for (int attempt = 0; !stopped; attempt++) {
            Operation.Attempt answer = send(op, pick(random));
            op.add(answer);
            if (answer.definitive() || System.nanoTime() >= until) {
                return;
            }
            long backOffMs = Math.min(1000, 50L << Math.min(attempt, 5));
            Thread.sleep(backOffMs / 2 + random.nextInt((int) backOffMs));
        }
    }

    private int pick(Random random) {
        int node = random.nextInt(nodes.size());
        return nodes.get(node).serving() ? node : (node + 1) % nodes.size();
    }

    private Operation.Attempt send(Operation op, int node) throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(nodes.get(node).base(contextRoot).resolve("api/payments"))
                .timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", op.key)
                .POST(HttpRequest.BodyPublishers.ofString(op.body))
                .build();
        long start = System.nanoTime();
        try {
            HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
            int status = response.statusCode();
            String problemType = null;
            if (response.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json")) {
                Matcher type = PROBLEM_TYPE.matcher(new String(response.body(), StandardCharsets.UTF_8));
                problemType = type.find() ? type.group(1) : "(not the library's)";
            }
            boolean replayed = response.headers().firstValue("Idempotent-Replayed").isPresent();
            return new Operation.Attempt(node, start, System.nanoTime(), status, problemType, replayed,
                    status / 100 == 2 ? response.body() : null);
        } catch (IOException noAnswer) {
            return new Operation.Attempt(node, start, System.nanoTime(), Operation.Attempt.NO_ANSWER, null, false, null);
        }
    }
}
