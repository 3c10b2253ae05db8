package dev.idempotency.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.idempotency.it.support.Campaign;
import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.Http;
import dev.idempotency.it.support.PayaraMicroProcess;
import dev.idempotency.it.support.PaymentsDatabase;
import dev.idempotency.it.support.PostgreSqlDataSource;
import dev.idempotency.redis.RedisCluster;
import dev.idempotency.redis.RedisServer;

/**
 * The Redis store on a Redis Cluster of 3 masters and 3 replicas (loopback, ACL user, node
 * timeout 2 s) whose master is killed (SIGKILL, by PID) in the middle of a load: keys acquired
 * twice are counted in PostgreSQL (an order with more than one payment row: its key ran twice).
 * Once per setting, {@code idempotency.redis.wait-replicas=0} and {@code =1}, each on a cluster
 * and a WAR of its own, both WARs in one Payara Micro (the store reads its settings per
 * application).
 *
 * <p>The load, after a short warm-up: {@value #CLIENTS} clients, each sending a fresh key, then
 * retrying it every {@value #RETRY_MS} ms until a final answer (2xx, or a 4xx other than 409),
 * then the next key; {@link #BEFORE_KILL} before the kill, {@link #AFTER_KILL} after it. Once a
 * replica is promoted, the killed node is started again on its nodes.conf and rejoins as that
 * one's replica (until then the promoted master has none, so with {@code wait-replicas=1} its
 * slots fail closed). Then every key is sent once more (a client's late retry): a record the
 * failover lost runs its key a second time then.
 *
 * <p>What is asserted: no request got a wrong answer (a 2xx naming another order or a payment
 * that is not in the database, two different bodies for a key that ran once, a 2xx for a key
 * that never paid); every key got a final answer, those sent after the failover too, without
 * restarting the application; with {@code wait-replicas=1}, no key ran twice (every claim and
 * mark is on the master's one replica before the call returns, and that replica is the one
 * promoted). With {@code wait-replicas=0} the duplicates are only reported: replication is
 * asynchronous and a master killed between answering and replicating loses the write (the
 * documented window).
 *
 * <p>The long campaign only ({@code -Dit.long=true}, {@link Campaign}), as the figures in
 * docs/stores/redis.md were measured: every build's fault campaign ({@code FaultCampaignIT})
 * already kills and freezes masters of a Redis Cluster with {@code wait-replicas=1} under load and
 * checks every history for the same promise.
 */
class RedisClusterFailoverIT {

    static final int CLIENTS = 8;
    static final long RETRY_MS = 100;
    static final Duration BEFORE_KILL = Duration.ofSeconds(4);
    static final Duration AFTER_KILL = Duration.ofSeconds(10);
    /** Longer than Lettuce's periodic topology refresh (30 s): the wait-replicas path may route by a stale view until then. */
    static final Duration KEY_PATIENCE = Duration.ofSeconds(45);
    /** A claim whose owner's calls died with the master is taken over by its retries after this. */
    static final String CONFIG = "Idempotent/lease=PT3S\n"
            // every retry asks Redis: a node's cache of completed records would answer for a lost one
            + "idempotency.replay-cache.max-bytes=0";

    private static final Pattern ORDER_ID = Pattern.compile("\"orderId\"\\s*:\\s*\"([^\"]+)\"");
    private static final Pattern PAYMENT_ID = Pattern.compile("\"id\"\\s*:\\s*\"([^\"]+)\"");

    private static RedisCluster noWait;
    private static RedisCluster withWait;
    private static PayaraMicroProcess payara;

    @BeforeAll
    static void start() throws Exception {
        Assumptions.assumeTrue(Campaign.LONG, "the long campaign only (-Dit.long=true): FaultCampaignIT covers the promise");
        withWait = RedisCluster.start("failover-wait1", 7351);
        noWait = RedisCluster.start("failover-wait0", 7341);
        payara = PayaraMicroProcess.start("redis-failover",
                Deployments.sampleAppOnRedis("wait0", CONFIG, settings(noWait, 0)),
                Deployments.sampleAppOnRedis("wait1", CONFIG, settings(withWait, 1)));
    }

    @AfterAll
    static void stop() throws Exception {
        if (payara != null) {
            payara.close();
        }
        if (noWait != null) {
            noWait.close();
        }
        if (withWait != null) {
            withWait.close();
        }
    }

    private static Map<String, String> settings(RedisCluster cluster, int waitReplicas) {
        return Map.of("idempotency.redis.uri", cluster.uris(), "idempotency.redis.user", RedisServer.USER,
                "idempotency.redis.password", RedisServer.PASSWORD, "idempotency.redis.wait-replicas",
                String.valueOf(waitReplicas));
    }

    @Test
    void aMasterKilledWithoutWaitingForReplicasNeverGivesAWrongAnswer() throws Exception {
        // it reports, asserts no promise
        Figures figures = failover(new Http(payara.url("wait0")), noWait, "wait-replicas=0");

        assertHonest(figures);
        // not asserted: a claim or mark the master answered before its replica had it is lost
        // with the master, and its key runs again (reported as duplicates)
    }

    @Test
    void aMasterKilledWhileWaitingForOneReplicaRunsNoKeyTwice() throws Exception {
        Figures figures = failover(new Http(payara.url("wait1")), withWait, "wait-replicas=1");

        assertHonest(figures);
        assertThat(figures.duplicates()).as("keys that ran twice with wait-replicas=1: " + figures.examples()).isZero();
    }

    private static void assertHonest(Figures figures) {
        assertThat(figures.wrongAnswers()).as("wrong answers: " + figures.examples()).isZero();
        // every key settles, those created after the failover too: the application recovered by itself
        assertThat(figures.unsettled()).as("keys without a final answer: " + figures.examples()).isZero();
    }

    /** What one failover pass produced. */
    record Figures(String setting, int keys, long requests, Map<Integer, Long> statuses, long promotedAfterMs,
            long rejoinedAfterMs, long lastFailureAfterKillMs, long failuresAfterRejoin, long lastFailureAfterRejoinMs,
            long duplicates,
            long extraRuns, long unpaidSuccesses, long lostOutcomes, long lostOutcomesPaid, long unsettled,
            long wrongAnswers, List<String> examples) {
    }

    /** One answer: its status (0: the exchange failed), whether a replay, its body, when. */
    record Answer(int status, boolean replayed, byte[] body, long atNanos) {
    }

    /** A key, its order, its body and every answer it got. */
    record Key(String key, String orderId, String body, List<Answer> answers) {

        Answer last() {
            return answers.get(answers.size() - 1);
        }
    }

    static boolean isFinal(int status) {
        return status / 100 == 2 || (status / 100 == 4 && status != 409);
    }

    private static Figures failover(Http http, RedisCluster cluster, String setting) throws Exception {
        String prefix = "o-failover-" + UUID.randomUUID() + "-";
        List<Key> keys = new CopyOnWriteArrayList<>();
        Map<Integer, AtomicLong> statuses = new ConcurrentHashMap<>();
        AtomicLong requests = new AtomicLong();
        AtomicInteger amounts = new AtomicInteger();

        RedisServer victim = cluster.masters().get(0);
        warmUp(http);
        long startedAt = System.nanoTime();
        long loadEnd = startedAt + BEFORE_KILL.plus(AFTER_KILL).toNanos();
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        List<Future<?>> running = new ArrayList<>();
        long killedAt;
        long promotedAt;
        long rejoinedAt;
        try {
            for (int c = 0; c < CLIENTS; c++) {
                running.add(clients.submit(() -> {
                    while (System.nanoTime() < loadEnd) {
                        String orderId = prefix + UUID.randomUUID();
                        Key key = new Key(Http.newKey(), orderId, "{\"orderId\":\"" + orderId + "\",\"amount\":"
                                + (1 + amounts.incrementAndGet() % 999) + ",\"currency\":\"EUR\"}", new CopyOnWriteArrayList<>());
                        keys.add(key);
                        settle(http, key, statuses, requests);
                    }
                    return null;
                }));
            }
            Thread.sleep(BEFORE_KILL.toMillis());
            killedAt = System.nanoTime();
            victim.signal("KILL");
            cluster.awaitPromotedInsteadOf(victim);
            promotedAt = System.nanoTime();
            // the killed node comes back as the promoted one's replica: until then that master has
            // none, and with wait-replicas=1 its slots fail closed (503)
            victim.stop();
            victim.rejoin();
            cluster.awaitReplicaAgain(victim);
            rejoinedAt = System.nanoTime();
            for (Future<?> client : running) {
                client.get(AFTER_KILL.plus(KEY_PATIENCE).plusSeconds(30).toMillis(), TimeUnit.MILLISECONDS);
            }
            // every key once more, as a client's late retry: what a lost record does shows now
            running.clear();
            AtomicInteger next = new AtomicInteger();
            List<Key> all = List.copyOf(keys);
            for (int c = 0; c < CLIENTS; c++) {
                running.add(clients.submit(() -> {
                    for (int i = next.getAndIncrement(); i < all.size(); i = next.getAndIncrement()) {
                        settle(http, all.get(i), statuses, requests);
                    }
                    return null;
                }));
            }
            for (Future<?> client : running) {
                client.get(KEY_PATIENCE.plusSeconds(60).toMillis(), TimeUnit.MILLISECONDS);
            }
        } finally {
            clients.shutdownNow();
        }

        Map<String, Set<String>> paid = PaymentsDatabase.paymentIdsPerOrder(PostgreSqlDataSource.URL, prefix);
        long duplicates = 0;
        long extraRuns = 0;
        long unpaidSuccesses = 0;
        long lost = 0;
        long lostPaid = 0;
        long unsettled = 0;
        long wrong = 0;
        long failuresAfterRejoin = 0;
        long lastFailure = -1;
        long lastFailureAfterKill = -1;
        List<String> examples = new ArrayList<>();
        for (Key key : keys) {
            Set<String> ids = paid.getOrDefault(key.orderId(), Set.of());
            if (ids.size() > 1) {
                duplicates++;
                extraRuns += ids.size() - 1;
                if (examples.size() < 8) {
                    examples.add("ran " + ids.size() + " times: " + history(key, killedAt));
                }
            }
            if (!isFinal(key.last().status())) {
                unsettled++;
                if (examples.size() < 8) {
                    examples.add("unsettled: " + history(key, killedAt));
                }
            }
            if (key.last().status() == 410) {
                lost++;
                lostPaid += ids.isEmpty() ? 0 : 1;
                if (examples.size() < 8) {
                    examples.add("410 at the end, " + ids.size() + " payment(s): " + history(key, killedAt));
                }
            }
            byte[] first = null;
            boolean successWithoutPayment = false;
            for (Answer answer : key.answers()) {
                if (!isFinal(answer.status())) {
                    lastFailureAfterKill = Math.max(lastFailureAfterKill, answer.atNanos() - killedAt);
                }
                if (!isFinal(answer.status()) && answer.atNanos() > rejoinedAt) {
                    failuresAfterRejoin++;
                    lastFailure = Math.max(lastFailure, answer.atNanos() - rejoinedAt);
                }
                if (answer.status() / 100 != 2) {
                    continue;
                }
                String body = new String(answer.body(), StandardCharsets.UTF_8);
                Matcher order = ORDER_ID.matcher(body);
                Matcher payment = PAYMENT_ID.matcher(body);
                String problem = null;
                if (!order.find() || !order.group(1).equals(key.orderId())) {
                    problem = "a 2xx for another order";
                } else if (!payment.find() || !ids.contains(payment.group(1))) {
                    problem = ids.isEmpty() ? "a 2xx for a key that never paid" : "a 2xx naming a payment not in the database";
                    successWithoutPayment = ids.isEmpty();
                } else if (ids.size() == 1 && first != null && !Arrays.equals(first, answer.body())) {
                    problem = "two different bodies for a key that ran once";
                }
                if (first == null) {
                    first = answer.body();
                }
                if (problem != null) {
                    wrong++;
                    if (examples.size() < 8) {
                        examples.add(problem + ": " + key.orderId() + " rows " + ids + " answer " + answer.status()
                                + (answer.replayed() ? " (replay) " : " ") + body);
                    }
                }
            }
            if (successWithoutPayment) {
                unpaidSuccesses++;
            }
        }
        Map<Integer, Long> counted = new TreeMap<>();
        statuses.forEach((status, n) -> counted.put(status, n.get()));
        Figures figures = new Figures(setting, keys.size(), requests.get(), counted, (promotedAt - killedAt) / 1_000_000,
                (rejoinedAt - killedAt) / 1_000_000, lastFailureAfterKill / 1_000_000, failuresAfterRejoin, lastFailure < 0 ? -1 : lastFailure / 1_000_000,
                duplicates, extraRuns, unpaidSuccesses, lost, lostPaid, unsettled, wrong, examples);
        System.out.printf("redis cluster failover (%s): master %d killed (SIGKILL) %d s into the load; %d keys, %d requests"
                        + " (every key sent once more at the end), answers %s; a replica promoted %d ms after the kill,"
                        + " the killed node back as its replica %d ms after the kill; the last non-final answer (503, 409,"
                        + " none) %d ms after the kill; after the node was back: %d, the last %d ms after it; keys acquired twice (payment rows > 1): %d (%d extra"
                        + " executions); 2xx without a payment: %d; keys ending 410 (outcome lost): %d, %d of them paid;"
                        + " unsettled: %d; wrong answers: %d; %s%n",
                setting, victim.port, BEFORE_KILL.toSeconds(), figures.keys(), figures.requests(), figures.statuses(),
                figures.promotedAfterMs(), figures.rejoinedAfterMs(), figures.lastFailureAfterKillMs(),
                figures.failuresAfterRejoin(),
                figures.lastFailureAfterRejoinMs(), figures.duplicates(), figures.extraRuns(), figures.unpaidSuccesses(),
                figures.lostOutcomes(), figures.lostOutcomesPaid(), figures.unsettled(), figures.wrongAnswers(),
                figures.examples());
        return figures;
    }

    /** @return a key's answers, each as status@ms-since-the-kill */
    private static String history(Key key, long killedAt) {
        StringBuilder history = new StringBuilder(key.orderId()).append(':');
        for (Answer answer : key.answers()) {
            history.append(' ').append(answer.status()).append(answer.replayed() ? "r" : "").append('@')
                    .append((answer.atNanos() - killedAt) / 1_000_000);
        }
        return history.toString();
    }

    /** A few payments first, not counted: the application's first requests are slow. */
    private static void warmUp(Http http) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Future<?>> all = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                all.add(threads.submit(() -> {
                    for (int i = 0; i < 10; i++) {
                        String orderId = "o-warm-up-" + UUID.randomUUID();
                        http.postJson("api/payments", Http.newKey(),
                                "{\"orderId\":\"" + orderId + "\",\"amount\":1,\"currency\":\"EUR\"}");
                    }
                    return null;
                }));
            }
            for (Future<?> one : all) {
                one.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    /** Sends the key, and again every {@value #RETRY_MS} ms until a final answer (bounded). */
    private static void settle(Http http, Key key, Map<Integer, AtomicLong> statuses, AtomicLong requests)
            throws InterruptedException {
        long deadline = System.nanoTime() + KEY_PATIENCE.toNanos();
        while (true) {
            Answer answer;
            try {
                HttpResponse<byte[]> response = http.postJson("api/payments", key.key(), key.body());
                answer = new Answer(response.statusCode(), response.headers().firstValue("Idempotent-Replayed").isPresent(),
                        response.body(), System.nanoTime());
            } catch (IllegalStateException exchangeFailed) {
                answer = new Answer(0, false, new byte[0], System.nanoTime());
            }
            key.answers().add(answer);
            statuses.computeIfAbsent(answer.status(), s -> new AtomicLong()).incrementAndGet();
            requests.incrementAndGet();
            if (isFinal(answer.status()) || System.nanoTime() > deadline) {
                return;
            }
            Thread.sleep(RETRY_MS);
        }
    }
}
