package dev.idempotency.benchmarks;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the store benchmarks against real servers it starts itself, at 1 and 8 threads, and writes
 * the tables of BENCHMARKS.md (operations per second and the ratio of ours to the baseline,
 * measured in the same run) and what a stored record costs in each store to
 * {@code benchmarks/target/store-benchmarks.md}.
 *
 * <p>{@code -Dbench.quick=true} shortens every measurement, to check that everything runs;
 * {@code -Dbench.threads=8} runs one thread count only and {@code -Dbench.include=ours.*} only
 * the benchmarks whose names match (for a profile); {@code -Dbench.footprint-only=true} skips JMH;
 * {@code -Dbench.growth=false} skips the growth benchmark ({@link GrowthBenchmark});
 * {@code -Dbench.fork-jvm-options="..."} adds options to the forked JVMs (a JFR recording, say).
 */
public final class StoreBenchmarks {

    /** A row of a table: ours, the baseline, and what the ratio must reach. */
    private record Comparison(String what, String ours, String baseline, double target) {
    }

    private static final List<Comparison> INFINISPAN = List.of(
            new Comparison("claim + complete (1 KiB answer)", "oursClaimAndComplete", "rawPutIfAbsentThenReplaceWithVersion", 0.95),
            new Comparison("replay look-up", "oursReplayLookup", "rawGetWithMetadata", 0.9),
            new Comparison("claim + complete vs Camel add + confirm", "oursClaimAndComplete", "camelAddThenConfirm", 1.0));
    private static final List<Comparison> JPA = List.of(
            new Comparison("claim + complete (1 KiB answer)", "oursClaimAndComplete", "rawInsertThenUpdate", 0.9),
            new Comparison("replay look-up", "oursReplayLookup", "rawSelect", 0.8),
            new Comparison("claim + complete, statements on the datasource", "oursStatementsClaimAndComplete",
                    "rawAutoCommittedInsertThenUpdate", 0.9),
            new Comparison("replay look-up, one query on the datasource", "oursStatementsReplayLookup", "rawSelect", 0.8),
            // the same two, against raw JDBC taking its connections from the same pool (as server code does)
            new Comparison("claim + complete, statements on the datasource, vs raw JDBC on the same pool",
                    "oursStatementsClaimAndComplete", "rawPooledInsertThenUpdate", 0.9),
            new Comparison("replay look-up, one query on the datasource, vs raw JDBC on the same pool",
                    "oursStatementsReplayLookup", "rawPooledSelect", 0.8));
    private static final List<Comparison> REDIS = List.of(
            new Comparison("claim + complete (1 KiB answer)", "oursClaimAndComplete", "rawSetNxPxGetThenEvalsha", 0.9),
            new Comparison("replay look-up", "oursReplayLookup", "rawGet", 0.9),
            new Comparison("claim + complete vs Camel add + confirm", "oursClaimAndComplete", "camelAddThenConfirm", 1.0));
    /** every store with tables; {@code -Dbench.stores} picks some */
    private static final Set<String> STORES = Set.of("infinispan", "jpa", "redis");

    private StoreBenchmarks() {
    }

    public static void main(String[] args) throws Exception {
        boolean quick = Boolean.getBoolean("bench.quick");
        StringBuilder report = new StringBuilder();
        Set<String> stores = stores();
        boolean all = stores.equals(STORES);
        try (BenchmarkServers servers = BenchmarkServers.start(stores)) {
            int[] counts = Boolean.getBoolean("bench.footprint-only") ? new int[0]
                    : Integer.getInteger("bench.threads") == null ? new int[] {1, 8}
                    : new int[] {Integer.getInteger("bench.threads")};
            for (int threads : counts) {
                String suffix = ", " + threads + " thread" + (threads > 1 ? "s" : "");
                if (stores.contains("infinispan")) {
                    table(report, "Infinispan store" + suffix, INFINISPAN,
                            run(InfinispanStoreBenchmark.class, threads, servers, quick));
                }
                if (stores.contains("jpa")) {
                    table(report, "JPA store on PostgreSQL" + suffix, JPA, run(JpaStoreBenchmark.class, threads, servers, quick));
                }
                if (stores.contains("redis")) {
                    table(report, "Redis store" + suffix, REDIS, run(RedisStoreBenchmark.class, threads, servers, quick));
                }
            }
            if (all && counts.length > 0 && !"false".equals(System.getProperty("bench.growth"))) {
                growth(report, runResults(GrowthBenchmark.class, 1, servers, quick));
            }
            servers.exportToThisJvm();
            report.append(StorageFootprint.measure(stores, all));
        }
        Path out = Path.of("benchmarks", "target", "store-benchmarks.md");
        Files.createDirectories(out.getParent());
        Files.writeString(out, report);
        System.out.println(report);
        System.out.println("written to " + out);
    }

    /** @return the stores of {@code -Dbench.stores}, all by default */
    private static Set<String> stores() {
        String given = System.getProperty("bench.stores", "").trim();
        if (given.isEmpty()) {
            return STORES;
        }
        Set<String> stores = new TreeSet<>();
        for (String store : given.split(",")) {
            if (!STORES.contains(store.trim())) {
                throw new IllegalArgumentException("-Dbench.stores: " + store + " is none of " + new TreeSet<>(STORES));
            }
            stores.add(store.trim());
        }
        return stores.size() == STORES.size() ? STORES : stores;
    }

    private static Map<String, Double> run(Class<?> benchmark, int threads, BenchmarkServers servers, boolean quick)
            throws Exception {
        Map<String, Double> scores = new LinkedHashMap<>();
        for (RunResult result : runResults(benchmark, threads, servers, quick)) {
            String name = result.getParams().getBenchmark();
            scores.put(name.substring(name.lastIndexOf('.') + 1), result.getPrimaryResult().getScore());
        }
        return scores;
    }

    private static Collection<RunResult> runResults(Class<?> benchmark, int threads, BenchmarkServers servers,
            boolean quick) throws Exception {
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include(benchmark.getName() + "\\." + System.getProperty("bench.include", ""))
                .threads(threads)
                .forks(1)
                .warmupIterations(quick ? 1 : 2)
                .warmupTime(TimeValue.seconds(quick ? 1 : 5))
                .measurementIterations(quick ? 1 : 3)
                .measurementTime(TimeValue.seconds(quick ? 2 : 5))
                .timeUnit(TimeUnit.SECONDS)
                .shouldFailOnError(true)
                .jvmArgsAppend(forkOptions(servers).toArray(String[]::new));
        if (benchmark != RedisStoreBenchmark.class) {
            return new Runner(options.build()).run();
        }
        // JMH gives its forks this JVM's java.class.path: for the Redis fork, one with Netty 4.2
        String classPath = System.getProperty("java.class.path");
        System.setProperty("java.class.path", redisClassPath());
        try {
            return new Runner(options.build()).run();
        } finally {
            System.setProperty("java.class.path", classPath);
        }
    }

    /**
     * @return this JVM's class path without Netty (the Hot Rod client's 4.1), with Lettuce's
     *     Netty 4.2 instead ({@code target/netty-4.2}, next to the benchmarks' jar)
     */
    static String redisClassPath() throws IOException {
        List<String> entries = new ArrayList<>();
        Path jar = null;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Path.of(entry);
            String name = path.getFileName() == null ? "" : path.getFileName().toString();
            if (name.startsWith("idempotency-benchmarks-") && name.endsWith(".jar")) {
                jar = path;
            }
            if (!name.startsWith("netty-")) {
                entries.add(entry);
            }
        }
        Path netty = (jar == null ? Path.of("benchmarks", "target", "x.jar") : jar).toAbsolutePath().getParent()
                .resolve("netty-4.2");
        try (Stream<Path> jars = Files.list(netty)) {
            jars.filter(p -> p.toString().endsWith(".jar")).sorted().forEach(p -> entries.add(p.toString()));
        } catch (NoSuchFileException e) {
            throw new IllegalStateException(netty + " is missing: build with ./mvnw -pl benchmarks -am package", e);
        }
        return String.join(File.pathSeparator, entries);
    }

    /** @return where the servers are, and {@code bench.fork-jvm-options} (one call: JMH keeps the last) */
    private static List<String> forkOptions(BenchmarkServers servers) {
        List<String> options = new ArrayList<>(servers.jvmOptions());
        String extra = System.getProperty("bench.fork-jvm-options", "").trim();
        if (!extra.isEmpty()) {
            options.addAll(List.of(extra.split("\\s+")));
        }
        return options;
    }

    /** First executions per second by store and live records, and the ratio to the store's smallest count. */
    private static void growth(StringBuilder report, Collection<RunResult> results) {
        Map<String, Map<Integer, Double>> byStore = new LinkedHashMap<>();
        for (RunResult result : results) {
            byStore.computeIfAbsent(result.getParams().getParam("storeName"), s -> new TreeMap<>())
                    .put(Integer.valueOf(result.getParams().getParam("liveKeys")), result.getPrimaryResult().getScore());
        }
        report.append("\n### First executions as the store fills up, 1 thread\n\n")
                .append("| store | live records | claim + complete (ops/s) | ratio to 1 live record |\n")
                .append("|---|---:|---:|---:|\n");
        byStore.forEach((store, scores) -> {
            double first = scores.values().iterator().next();
            scores.forEach((live, score) -> report.append(String.format(Locale.ROOT, "| %s | %,d | %,.0f | %.2f |%n",
                    store, live, score, score / first)));
        });
    }

    private static void table(StringBuilder report, String title, List<Comparison> rows, Map<String, Double> scores) {
        report.append("\n### ").append(title).append("\n\n")
                .append("| operation | ours (ops/s) | baseline | baseline (ops/s) | ratio | target |\n")
                .append("|---|---:|---|---:|---:|---:|\n");
        List<String> lines = new ArrayList<>();
        for (Comparison row : rows) {
            double ours = scores.getOrDefault(row.ours(), Double.NaN);
            double baseline = scores.getOrDefault(row.baseline(), Double.NaN);
            double ratio = ours / baseline;
            lines.add(String.format(Locale.ROOT, "| %s | %,.0f | `%s` | %,.0f | %.2f | %s %.2f |", row.what(), ours,
                    row.baseline(), baseline, ratio, ratio >= row.target() ? "met, ≥" : "NOT met, ≥", row.target()));
        }
        lines.forEach(line -> report.append(line).append('\n'));
    }
}
