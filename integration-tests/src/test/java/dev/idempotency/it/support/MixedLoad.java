package dev.idempotency.it.support;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A bounded load on {@code POST api/payments}: each client thread sends, one after the other,
 * either a first request with a fresh key and order, or a retry of an earlier key with its exact
 * body. Every answer is recorded per key, with when it came, so that a test can hold them against
 * the rows the database holds per order.
 */
public final class MixedLoad {

    /**
     * One answer: its status (0 when the exchange failed), whether it was a replay, and when it
     * arrived.
     */
    public record Answer(int status, boolean replayed, long atNanos) {
    }

    /** A key, its order and every answer it got. */
    public record Key(String key, String orderId, String body, List<Answer> answers) {

        /** @return whether some answer was a 2xx */
        public boolean succeeded() {
            return answers.stream().anyMatch(answer -> answer.status() / 100 == 2);
        }

        /** @return whether every answer was a 503: the store never admitted this key */
        public boolean onlyRefused() {
            return answers.stream().allMatch(answer -> answer.status() == 503);
        }
    }

    private final Http http;
    private final String orderPrefix;
    private final List<Key> keys = new CopyOnWriteArrayList<>();
    private final Map<Integer, AtomicLong> statuses = new ConcurrentHashMap<>();
    private final AtomicLong requests = new AtomicLong();
    private volatile boolean stopped;
    private ExecutorService threads;

    /**
     * @param http the target
     * @param orderPrefix the start of every order id of this run
     */
    public MixedLoad(Http http, String orderPrefix) {
        this.http = http;
        this.orderPrefix = orderPrefix;
    }

    /**
     * Runs the load in the background until {@link #stop()}, or at most {@code limit}.
     *
     * @param limit the longest it may run (a bound, whatever happens to the test)
     * @param clients how many requests in flight at once
     * @param retryShare the share of requests that retry an earlier key (0 to 1)
     * @return completes when the load ends
     */
    public Future<?> start(Duration limit, int clients, double retryShare) {
        threads = Executors.newFixedThreadPool(clients + 1);
        long end = System.nanoTime() + limit.toNanos();
        List<Future<?>> all = new ArrayList<>();
        for (int client = 0; client < clients; client++) {
            all.add(threads.submit(() -> {
                while (!stopped && System.nanoTime() < end) {
                    send(pick(retryShare));
                }
                return null;
            }));
        }
        Future<?> done = threads.submit(() -> {
            for (Future<?> client : all) {
                client.get();
            }
            return null;
        });
        threads.shutdown();
        return done;
    }

    /** A step of an outage: stopping or starting a server. */
    public interface Step {
        void run() throws Exception;
    }

    /**
     * When an outage run did what, as {@link System#nanoTime()} instants.
     *
     * @param startedAt the load started
     * @param stoppedAt the server was stopped
     * @param restartAt its restart began
     * @param backAt it was back
     */
    public record Outage(long startedAt, long stoppedAt, long restartAt, long backAt) {
    }

    /**
     * Runs the load with an outage in the middle, then waits for it to end (bounded).
     *
     * @param clients how many requests in flight at once
     * @param before how long the load runs before the outage
     * @param outage how long the server is down
     * @param atLeast the shortest the whole load runs
     * @param after how long the load goes on after the server is back, at least
     * @param stop stops the server
     * @param start starts it again
     * @return when each step happened
     * @throws Exception from the steps or the load
     */
    public Outage runWithOutage(int clients, Duration before, Duration outage, Duration atLeast, Duration after, Step stop,
            Step start) throws Exception {
        Future<?> running = start(before.plus(outage).plus(atLeast).plus(after).plus(Duration.ofSeconds(120)), clients, 0.5);
        long startedAt = System.nanoTime();
        try {
            Thread.sleep(before.toMillis());
            long stoppedAt = System.nanoTime();
            stop.run();
            Thread.sleep(Math.max(0, outage.toMillis() - (System.nanoTime() - stoppedAt) / 1_000_000));
            long restartAt = System.nanoTime();
            start.run();
            long backAt = System.nanoTime();
            long end = Math.max(startedAt + atLeast.toNanos(), backAt + after.toNanos());
            Thread.sleep(Math.max(0, (end - System.nanoTime()) / 1_000_000));
            stop();
            await(running, Duration.ofSeconds(90));
            return new Outage(startedAt, stoppedAt, restartAt, backAt);
        } finally {
            abort();
        }
    }

    /** Ends the load: every client finishes the request it is sending, then stops. */
    public void stop() {
        stopped = true;
    }

    /** Ends the load at once, interrupting the clients (after a failed test). */
    public void abort() {
        stopped = true;
        if (threads != null) {
            threads.shutdownNow();
        }
    }

    private Key pick(double retryShare) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int known = keys.size();
        if (known > 0 && random.nextDouble() < retryShare) {
            return keys.get(random.nextInt(known));
        }
        String orderId = orderPrefix + UUID.randomUUID();
        Key fresh = new Key(Http.newKey(), orderId,
                "{\"orderId\":\"" + orderId + "\",\"amount\":" + (1 + random.nextInt(999)) + ",\"currency\":\"EUR\"}",
                new CopyOnWriteArrayList<>());
        keys.add(fresh);
        return fresh;
    }

    private void send(Key key) {
        int status;
        boolean replayed;
        try {
            HttpResponse<byte[]> response = http.postJson("api/payments", key.key(), key.body());
            status = response.statusCode();
            replayed = response.headers().firstValue("Idempotent-Replayed").isPresent();
        } catch (IllegalStateException exchangeFailed) {
            status = 0;
            replayed = false;
        }
        key.answers().add(new Answer(status, replayed, System.nanoTime()));
        statuses.computeIfAbsent(status, s -> new AtomicLong()).incrementAndGet();
        requests.incrementAndGet();
    }

    /** @return every key sent so far */
    public List<Key> keys() {
        return List.copyOf(keys);
    }

    /** @return answers per status (0: the exchange failed) */
    public Map<Integer, Long> statuses() {
        Map<Integer, Long> copy = new java.util.TreeMap<>();
        statuses.forEach((status, n) -> copy.put(status, n.get()));
        return copy;
    }

    /** @return how many requests were sent */
    public long requests() {
        return requests.get();
    }

    /**
     * @param since a {@link System#nanoTime()} instant
     * @return when the first 2xx that was not a replay arrived after it, or -1
     */
    public long firstSuccessAfter(long since) {
        return keys.stream().flatMap(key -> key.answers().stream())
                .filter(answer -> answer.status() / 100 == 2 && !answer.replayed() && answer.atNanos() >= since)
                .mapToLong(Answer::atNanos).min().orElse(-1);
    }

    /**
     * @param from a {@link System#nanoTime()} instant
     * @param to a later one
     * @param replays whether to count replays (2xx answers marked {@code Idempotent-Replayed}) or
     *     the others (executions)
     * @return how many such 2xx answers arrived between the two
     */
    public long successesBetween(long from, long to, boolean replays) {
        return keys.stream().flatMap(key -> key.answers().stream())
                .filter(answer -> answer.status() / 100 == 2 && answer.replayed() == replays && answer.atNanos() >= from
                        && answer.atNanos() <= to)
                .count();
    }

    /** Waits for a started load to end (bounded). */
    public static void await(Future<?> load, Duration atMost) throws Exception {
        load.get(atMost.toMillis(), TimeUnit.MILLISECONDS);
    }
}
