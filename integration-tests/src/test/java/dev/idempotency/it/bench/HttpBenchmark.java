package dev.idempotency.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.jboss.shrinkwrap.api.asset.ClassLoaderAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.resources.BenchResource;
import dev.idempotency.it.resources.RawHotRodResource;
import dev.idempotency.it.resources.RawJdbcResource;
import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.Http;
import dev.idempotency.it.support.InfinispanForTests;
import dev.idempotency.it.support.OwnPostgreSqlForTests;
import dev.idempotency.it.support.PayaraMicroProcess;
import dev.idempotency.it.support.RedisForTests;

/**
 * The HTTP-level benchmark of BENCHMARKS.md (not part of the test suite: its name does not end in
 * IT; {@code benchmarks/run} runs it). One Payara Micro holds the sample app four times, on the
 * in-memory store, on Infinispan (a server of its own), on JPA (a PostgreSQL of its own) and on
 * Redis (a redis-server of its own); for
 * each, {@code wrk} on loopback measures the same no-op method without {@code @Idempotent} (the
 * baseline) and with it: first executions (a fresh key per request), replays (one key) and
 * duplicates of a request in progress (409), then the same for a 50 ms method. Every figure is
 * the mean of the measured rounds; the ratios are to the unannotated method of the same
 * application in the same rounds.
 *
 * <p>The server is warmed up until it runs at its own speed: Payara Micro's JIT needs about half
 * a minute of load on 2 cores, and a single warm-up of a few seconds left each case measured while
 * it was still getting faster (a subset of two cases ran at 2,354 then 7,720 requests a second in
 * its first two rounds, so the case measured first in each round looked 35-50 % slower). So the
 * warm-up repeats passes over every case until the cases together ran no faster than in the pass
 * before by more than {@code bench.http.warmup-tolerance} (the geometric mean of each case's rate
 * over its rate in the pass before, the cases a 50 ms sleep holds to about 300 a second left out),
 * at most {@code bench.http.warmup-passes} passes; the report says how many it took. The JIT's warm-up is the server's, not a case's: judged case by case, the
 * 5-second rates of this shared machine moved by up to 20 % from pass to pass when warm, and
 * no pass would ever settle. Only getting faster counts: once warm, the full set can drift slower
 * (the records the stores keep pile up), which more warm-up would not cure. The measured rounds
 * alternate their order (the table's order, then reversed), so that such a drift weighs on the
 * cases alike.
 *
 * <p>It is also a check: replays and duplicates must not run the method, first executions must,
 * and no request may fail. System properties: {@code bench.http.seconds} (10),
 * {@code bench.http.warmup-seconds} (5, per case and pass; longer when a pass would be shorter than
 * {@code bench.http.warmup-pass-seconds}, 30, as with a subset of cases), {@code bench.http.warmup-passes} (5),
 * {@code bench.http.warmup-tolerance} (0.1), {@code bench.http.rounds} (2),
 * {@code bench.http.connections} (16), {@code bench.http.jfr} (a JFR file for the server's
 * profile), {@code bench.http.stores} and {@code bench.http.scenarios} (comma-separated subsets,
 * e.g. {@code bench-memory} and {@code UNANNOTATED,FIRST}, to profile one case),
 * {@code bench.out} (the Markdown report).
 */
@ExtendWith({OwnPostgreSqlForTests.class, InfinispanForTests.class, RedisForTests.class})
class HttpBenchmark {

    static final Duration MEASURED = Duration.ofSeconds(Long.getLong("bench.http.seconds", 10));
    static final Duration WARM_UP = Duration.ofSeconds(Long.getLong("bench.http.warmup-seconds", 5));
    static final Duration WARM_UP_PASS = Duration.ofSeconds(Long.getLong("bench.http.warmup-pass-seconds", 30));
    static final int WARM_UP_PASSES = Integer.getInteger("bench.http.warmup-passes", 5);
    static final double WARM_UP_TOLERANCE = Double.parseDouble(System.getProperty("bench.http.warmup-tolerance", "0.1"));
    static final int ROUNDS = Integer.getInteger("bench.http.rounds", 2);
    static final int CONNECTIONS = Integer.getInteger("bench.http.connections", 16);
    static final String BODY = "{\"orderId\":\"order-1\",\"amount\":42.5,\"currency\":\"EUR\"}";
    static final Pattern NUMBER = Pattern.compile("\"(\\w+)\":(\\d+)");
    /** The Redis floor (the redis-store test jar): compiled against Lettuce, which this class path leaves out. */
    static final String RAW_REDIS = "dev/idempotency/redis/RawRedisResource.class";

    /** Long leases and ttls: nothing expires during a run; the in-memory store holds every record. */
    static final String CONFIG = String.join("\n",
            "idempotency.memory.max-entries=2000000",
            "idempotency.memory.max-bytes=4294967296",
            BenchResource.class.getName() + "/Idempotent/ttl=PT30M",
            BenchResource.class.getName() + "/Idempotent/lease=PT10M",
            "");

    /** What is measured, and against which baseline. */
    enum Scenario {
        UNANNOTATED("no-op, without `@Idempotent` (baseline)", null),
        RAW_FLOOR("no-op plus the store's own round trips, without the library (the floor)", null),
        FIRST("no-op, first executions (a fresh key each)", UNANNOTATED),
        REPLAY("no-op, replays (one key)", UNANNOTATED),
        IN_PROGRESS("duplicates of a request in progress (409)", UNANNOTATED),
        JSON_UNANNOTATED("JSON-bound method (an object in, an object out), without `@Idempotent` (baseline)", null),
        JSON_REPLAY("JSON-bound method, replays (one key)", JSON_UNANNOTATED),
        SLOW_UNANNOTATED("50 ms, without `@Idempotent` (baseline)", null),
        SLOW_FIRST("50 ms, first executions", SLOW_UNANNOTATED),
        SLOW_REPLAY("50 ms, replays", SLOW_UNANNOTATED);

        final String label;
        final Scenario baseline;

        Scenario(String label, Scenario baseline) {
            this.label = label;
            this.baseline = baseline;
        }

        /**
         * @return whether the scenario runs on the in-memory application only: the JSON-bound pair
         *     measures what a replay skips of an endpoint's usual work, which no store changes
         */
        boolean inMemoryOnly() {
            return this == JSON_UNANNOTATED || this == JSON_REPLAY;
        }

        /** @return whether the 50 ms sleep sets the rate, which the JIT cannot raise: warmed, not judged */
        boolean boundBySleep() {
            return this == SLOW_UNANNOTATED || this == SLOW_FIRST;
        }
    }

    /** What a scenario must do to the bench resource's execution count. */
    enum Executions {
        /** at least one execution per answer */
        ONE_PER_ANSWER,
        /** none: replays and duplicates never run the method */
        NONE,
        /** another resource's method: not counted */
        NOT_COUNTED
    }

    /**
     * An application on one store, and its first-execution target: a ratio to the floor where the
     * store has one (the store's round trips are not the library's to remove), else to the
     * unannotated method.
     *
     * @param rawPath the unannotated method making the store's round trips itself, or null
     * @param p99Target the most the first executions' p99 may be, in multiples of the unannotated
     *     method's, or 0 for none
     */
    record App(String store, String contextRoot, double firstTarget, String rawPath, double p99Target) {
    }

    /** One scenario on one application: what wrk loads for a while. */
    record Case(App app, Scenario scenario) {

        @Override
        public String toString() {
            return app.contextRoot() + " " + scenario;
        }
    }

    /**
     * @param passes how many passes over every case the warm-up made
     * @param eachCase how long each case was loaded in a pass
     * @param faster the last pass's rates over the pass before's (the geometric mean of the cases)
     */
    record WarmUp(int passes, Duration eachCase, double faster) {

        boolean settled() {
            return faster <= 1 + WARM_UP_TOLERANCE;
        }
    }

    /**
     * Replays skip the body's parse, the method and the serialisation: faster than the method
     * itself. Judged on both pairs; the no-op's own dispatch is 6 % of its request (a String in,
     * a String out), so its replays cannot reach it, and the JSON-bound pair is an endpoint's
     * usual work.
     */
    static final double REPLAY_TARGET = 1.2;

    private final List<App> apps = Stream.of(
            new App("in-memory", "bench-memory", 0.9, null, 3),
            new App("Infinispan (Hot Rod, a server of its own)", "bench-infinispan", 0.95, "api/bench/raw-hotrod", 0),
            new App("JPA on PostgreSQL (a server of its own)", "bench-jpa", 0.8, "api/bench/raw-jdbc", 0),
            new App("Redis (a redis-server of its own)", "bench-redis", 0.95, "api/bench/raw-redis", 0))
            .filter(app -> chosen("bench.http.stores", app.contextRoot())).toList();
    private final List<Scenario> scenarios = Stream.of(Scenario.values())
            .filter(scenario -> chosen("bench.http.scenarios", scenario.name())).toList();
    private final List<Case> cases = apps.stream().flatMap(app -> scenarios.stream()
            .filter(scenario -> scenario != Scenario.RAW_FLOOR || app.rawPath() != null)
            .filter(scenario -> !scenario.inMemoryOnly() || app.contextRoot().equals("bench-memory"))
            .map(scenario -> new Case(app, scenario))).toList();
    private final Map<App, Map<Scenario, List<Wrk.Result>>> results = new LinkedHashMap<>();
    private long runs;
    private WarmUp warmUp;

    @Test
    void measure() throws Exception {
        assertThat(cases).as("the cases bench.http.stores and bench.http.scenarios choose").isNotEmpty();
        WebArchive memory = Deployments.sampleAppOnMemoryStore("bench-memory", CONFIG).addClass(BenchResource.class);
        WebArchive infinispan = Deployments.sampleAppOnInfinispan("bench-infinispan", CONFIG,
                InfinispanForTests.clientProperties()).addClasses(BenchResource.class, RawHotRodResource.class);
        WebArchive jpa = Deployments.sampleAppOnDatabase("bench-jpa", CONFIG, OwnPostgreSqlForTests.server().jdbcUrl())
                .addClasses(BenchResource.class, RawJdbcResource.class);
        // the floor in the store's package, as a class file: it builds its client as the store does
        WebArchive redis = Deployments.sampleAppOnRedis("bench-redis", CONFIG, RedisForTests.settings())
                .addClass(BenchResource.class).add(new ClassLoaderAsset(RAW_REDIS), "WEB-INF/classes/" + RAW_REDIS);
        List<String> jvm = new ArrayList<>();
        String jfr = System.getProperty("bench.http.jfr", "");
        if (!jfr.isBlank()) {
            jvm.add("-XX:StartFlightRecording=filename=" + Path.of(jfr).toAbsolutePath() + ",settings=profile");
        }
        Wrk wrk = new Wrk(Path.of("target", "bench-http"), BODY, CONNECTIONS);
        long started = System.nanoTime();
        try (PayaraMicroProcess payara = PayaraMicroProcess.startAtFullSpeed("bench", jvm, memory, infinispan, jpa, redis)) {
            warmUp = warmUp(wrk, payara);
            for (int round = 1; round <= ROUNDS; round++) {
                List<Case> order = new ArrayList<>(cases);
                if (round % 2 == 0) {
                    Collections.reverse(order);
                }
                for (Case measured : order) {
                    Wrk.Result result = run(wrk, payara, measured, MEASURED);
                    System.out.printf(Locale.ROOT, "round %d, %s: %,.0f requests a second%n", round, measured,
                            result.perSecond());
                    results.computeIfAbsent(measured.app(), a -> new EnumMap<>(Scenario.class))
                            .computeIfAbsent(measured.scenario(), s -> new ArrayList<>()).add(result);
                }
            }
        }
        Path out = Path.of(System.getProperty("bench.out", "target/http-benchmarks.md"));
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, report(Duration.ofNanos(System.nanoTime() - started)));
        System.out.println(Files.readString(out));
    }

    /** Passes over every case until they stop getting faster together, at most {@link #WARM_UP_PASSES}. */
    private WarmUp warmUp(Wrk wrk, PayaraMicroProcess payara) throws Exception {
        // a pass of a few cases lasts WARM_UP_PASS at least: the JIT needs load, not passes
        Duration each = Duration.ofSeconds(Math.max(WARM_UP.toSeconds(),
                (WARM_UP_PASS.toSeconds() + cases.size() - 1) / cases.size()));
        List<Case> raisable = cases.stream().filter(warmed -> !warmed.scenario().boundBySleep()).toList();
        List<Case> judged = raisable.isEmpty() ? cases : raisable;
        Map<Case, Double> before = Map.of();
        for (int pass = 1;; pass++) {
            Map<Case, Double> rates = new LinkedHashMap<>();
            for (Case warmed : cases) {
                rates.put(warmed, run(wrk, payara, warmed, each).perSecond());
                System.out.printf(Locale.ROOT, "warm-up pass %d, %s: %,.0f requests a second%n", pass, warmed,
                        rates.get(warmed));
            }
            Map<Case, Double> previous = before;
            double faster = previous.isEmpty() ? Double.NaN : Math.exp(judged.stream()
                    .mapToDouble(warmed -> Math.log(rates.get(warmed) / previous.get(warmed))).average().orElseThrow());
            WarmUp reached = new WarmUp(pass, each, faster);
            if (reached.settled() || pass >= WARM_UP_PASSES) {
                return reached;
            }
            before = rates;
        }
    }

    private static boolean chosen(String property, String name) {
        String subset = System.getProperty(property, "");
        return subset.isBlank() || List.of(subset.split(",")).contains(name);
    }

    private Wrk.Result run(Wrk wrk, PayaraMicroProcess payara, Case loaded, Duration duration) throws Exception {
        App app = loaded.app();
        Scenario scenario = loaded.scenario();
        Http http = new Http(payara.url(app.contextRoot()));
        String key = "bench-" + ProcessHandle.current().pid() + "-" + (++runs);
        long executionsBefore = settledExecutions(http);
        Wrk.Result result;
        Executions expected;
        switch (scenario) {
            case UNANNOTATED, JSON_UNANNOTATED, SLOW_UNANNOTATED -> {
                result = wrk.oneKey(endpoint(http, scenario), key, duration);
                expected = Executions.ONE_PER_ANSWER;
            }
            case RAW_FLOOR -> {
                result = wrk.freshKeys(http.base().resolve(app.rawPath()), key, duration);
                expected = Executions.NOT_COUNTED;
            }
            case FIRST, SLOW_FIRST -> {
                result = wrk.freshKeys(endpoint(http, scenario), key, duration);
                expected = Executions.ONE_PER_ANSWER;
            }
            case REPLAY, JSON_REPLAY, SLOW_REPLAY -> {
                HttpResponse<byte[]> first = http.postJson(path(scenario), key, BODY);
                assertThat(first.statusCode()).as(Http.text(first)).isEqualTo(200);
                executionsBefore++;
                result = wrk.oneKey(endpoint(http, scenario), key, duration);
                expected = Executions.NONE;
            }
            default -> {
                result = inProgress(wrk, http, key, duration);
                executionsBefore++;
                expected = Executions.NONE;
            }
        }
        long executions = settledExecutions(http) - executionsBefore;
        assertThat(result.socketErrors()).as(result.output()).isZero();
        assertThat(result.requests()).as(result.output()).isPositive();
        if (scenario == Scenario.IN_PROGRESS) {
            assertThat(result.non2xx()).as("every duplicate answered 409\n" + result.output()).isEqualTo(result.requests());
        } else {
            assertThat(result.non2xx()).as(result.output()).isZero();
        }
        if (expected == Executions.NONE) {
            assertThat(executions).as(app.store() + ", " + scenario + ": the method never ran again").isZero();
        } else if (expected == Executions.ONE_PER_ANSWER) {
            assertThat(executions).as(app.store() + ", " + scenario + ": one execution per answer").isGreaterThanOrEqualTo(result.requests());
        }
        return result;
    }

    /** One request holds its key; wrk sends duplicates of it (409) until its time is up; then it is released. */
    private Wrk.Result inProgress(Wrk wrk, Http http, String key, Duration duration) throws Exception {
        CompletableFuture<HttpResponse<byte[]>> holder = CompletableFuture.supplyAsync(
                () -> http.postJson(path(Scenario.IN_PROGRESS), key, BODY));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (state(http).get("holding") < 1) {
            assertThat(System.nanoTime()).as("the held request started within 20 s").isLessThan(deadline);
            Thread.sleep(20);
        }
        HttpResponse<byte[]> duplicate = http.postJson(path(Scenario.IN_PROGRESS), key, BODY);
        assertThat(duplicate.statusCode()).as(Http.text(duplicate)).isEqualTo(409);
        assertThat(duplicate.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        Wrk.Result result = wrk.oneKey(endpoint(http, Scenario.IN_PROGRESS), key, duration);
        http.send(http.request("api/bench/release").POST(HttpRequest.BodyPublishers.noBody()).build());
        assertThat(holder.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        return result;
    }

    private static URI endpoint(Http http, Scenario scenario) {
        return http.base().resolve(path(scenario));
    }

    private static String path(Scenario scenario) {
        return "api/bench/" + switch (scenario) {
            case UNANNOTATED -> "plain";
            case FIRST, REPLAY -> "idempotent";
            case JSON_UNANNOTATED -> "plain-json";
            case JSON_REPLAY -> "idempotent-json";
            case SLOW_UNANNOTATED -> "plain-slow";
            case SLOW_FIRST, SLOW_REPLAY -> "idempotent-slow";
            case IN_PROGRESS -> "hold";
            case RAW_FLOOR -> throw new IllegalArgumentException("per application");
        };
    }

    /**
     * @return the execution count once it stopped moving: requests wrk left in flight when its
     *     time was up still finish on the server, and must count for their own scenario
     */
    private static long settledExecutions(Http http) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        long last = state(http).get("executions");
        while (true) {
            Thread.sleep(200);
            long now = state(http).get("executions");
            if (now == last) {
                return now;
            }
            assertThat(System.nanoTime()).as("the execution count settled within 20 s").isLessThan(deadline);
            last = now;
        }
    }

    private static Map<String, Long> state(Http http) {
        String body = Http.text(http.send(http.request("api/bench/state").GET().build()));
        Map<String, Long> state = new LinkedHashMap<>();
        Matcher matcher = NUMBER.matcher(body);
        while (matcher.find()) {
            state.put(matcher.group(1), Long.parseLong(matcher.group(2)));
        }
        assertThat(state).as(body).containsKeys("executions", "holding");
        return state;
    }

    private String report(Duration took) throws IOException {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "HTTP level: Payara Micro, wrk (1 thread, %d connections, loopback), "
                + "%d measured round(s) of %d s%s after %d warm-up pass(es) of %d s per case "
                + "(%s); took %d s. Ratio = ours / the unannotated "
                + "method of the same application, same rounds; ratio to the floor = ours / the unannotated method "
                + "making the store's own round trips itself.%n", CONNECTIONS, ROUNDS, MEASURED.toSeconds(),
                ROUNDS > 1 ? " (every second one in reverse order)" : "",
                warmUp.passes(), warmUp.eachCase().toSeconds(), warmUp.passes() == 1 ? "a single pass, not judged"
                        : String.format(Locale.ROOT, "the last pass %.2f × the rate of the one before, together: %s",
                                warmUp.faster(), warmUp.settled() ? "settled" : "NOT settled, still getting faster"),
                took.toSeconds()));
        for (Map.Entry<App, Map<Scenario, List<Wrk.Result>>> entry : results.entrySet()) {
            App app = entry.getKey();
            Map<Scenario, List<Wrk.Result>> rows = entry.getValue();
            out.append("\n#### ").append(app.store()).append("\n\n")
                    .append("| endpoint | req/s | p50 (ms) | p99 (ms) | ratio | ratio to the floor | target |\n")
                    .append("|---|---:|---:|---:|---:|---:|---|\n");
            List<Wrk.Result> floor = rows.get(Scenario.RAW_FLOOR);
            for (Map.Entry<Scenario, List<Wrk.Result>> row : rows.entrySet()) {
                Scenario scenario = row.getKey();
                double rate = mean(row.getValue(), Wrk.Result::perSecond);
                Double ratio = scenario.baseline != null && rows.containsKey(scenario.baseline)
                        ? rate / mean(rows.get(scenario.baseline), Wrk.Result::perSecond) : null;
                Double toFloor = scenario == Scenario.FIRST && floor != null ? rate / mean(floor, Wrk.Result::perSecond) : null;
                String target = "";
                if (scenario == Scenario.FIRST && toFloor != null) {
                    target = verdict(toFloor >= app.firstTarget(), String.format(Locale.ROOT, "≥ %.2f of the floor", app.firstTarget()));
                } else if (scenario == Scenario.FIRST && ratio != null) {
                    target = verdict(ratio >= app.firstTarget(), String.format(Locale.ROOT, "≥ %.2f", app.firstTarget()));
                } else if ((scenario == Scenario.REPLAY || scenario == Scenario.JSON_REPLAY) && ratio != null) {
                    target = verdict(ratio >= REPLAY_TARGET, String.format(Locale.ROOT, "≥ %.2f", REPLAY_TARGET));
                }
                out.append(String.format(Locale.ROOT, "| %s | %,.0f | %.2f | %.2f | %s | %s | %s |%n", scenario.label, rate,
                        mean(row.getValue(), Wrk.Result::p50Millis), mean(row.getValue(), Wrk.Result::p99Millis),
                        figure(ratio), figure(toFloor), target));
            }
            if (rows.containsKey(Scenario.FIRST) && rows.containsKey(Scenario.UNANNOTATED)) {
                double p99 = mean(rows.get(Scenario.FIRST), Wrk.Result::p99Millis)
                        / mean(rows.get(Scenario.UNANNOTATED), Wrk.Result::p99Millis);
                out.append(String.format(Locale.ROOT, "%nFirst executions' p99: %.1f× the unannotated method's", p99))
                        .append(app.p99Target() > 0 ? String.format(Locale.ROOT, " (target ≤ %.0f×: %s).%n", app.p99Target(),
                                p99 <= app.p99Target() ? "met" : "NOT met") : ".\n");
            }
        }
        return out.toString();
    }

    private static String verdict(boolean met, String target) {
        return (met ? "met, " : "NOT met, ") + target;
    }

    private static String figure(Double ratio) {
        return ratio == null ? "" : String.format(Locale.ROOT, "%.2f", ratio);
    }

    private static double mean(List<Wrk.Result> results, ToDoubleFunction<Wrk.Result> figure) {
        return results.stream().mapToDouble(figure).average().orElseThrow();
    }
}
