package dev.idempotency.it.bench;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.idempotency.testing.ChildProcess;

/**
 * Runs the {@code wrk} load tool (a process of its own, C, so that the load costs the 2 cores as
 * little as possible) against a loopback URL: POSTs of one JSON body, with either one
 * {@code Idempotency-Key} for every request or a fresh key per request.
 */
final class Wrk {

    /** A fresh key per request: a run-unique prefix, the wrk thread, a counter. */
    private static final String FRESH_KEYS = """
            wrk.method = "POST"
            wrk.headers["Content-Type"] = "application/json"
            wrk.body = '%s'
            local threads = 0
            function setup(thread)
              threads = threads + 1
              thread:set("tid", threads)
            end
            local prefix
            local counter = 0
            function init(args)
              prefix = args[1] .. "-" .. tid .. "-"
            end
            function request()
              counter = counter + 1
              wrk.headers["Idempotency-Key"] = prefix .. counter
              return wrk.format()
            end
            """;

    /** One key for every request (replays, duplicates in flight, the unannotated baseline). */
    private static final String ONE_KEY = """
            wrk.method = "POST"
            wrk.headers["Content-Type"] = "application/json"
            wrk.body = '%s'
            function init(args)
              wrk.headers["Idempotency-Key"] = args[1]
            end
            """;

    private static final Pattern REQUESTS = Pattern.compile("(\\d+) requests in ([\\d.]+)(us|ms|s|m)");
    private static final Pattern RATE = Pattern.compile("Requests/sec:\\s+([\\d.]+)");
    private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses: (\\d+)");
    private static final Pattern SOCKET_ERRORS = Pattern.compile(
            "Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)");

    private final Path work;
    private final String body;
    private final int connections;

    /**
     * @param work where the scripts and logs go
     * @param body the JSON body of every request
     * @param connections the connections kept open (one wrk thread drives them)
     */
    Wrk(Path work, String body, int connections) throws IOException {
        this.work = Files.createDirectories(work);
        this.body = body;
        this.connections = connections;
        Files.writeString(work.resolve("fresh-keys.lua"), FRESH_KEYS.formatted(body));
        Files.writeString(work.resolve("one-key.lua"), ONE_KEY.formatted(body));
    }

    /** @return the body every request sends */
    String body() {
        return body;
    }

    /**
     * @param url a loopback URL
     * @param keyPrefix a prefix no earlier run used; every request gets its own key under it
     * @param duration how long
     * @return what wrk measured
     */
    Result freshKeys(URI url, String keyPrefix, Duration duration) throws IOException, InterruptedException {
        return run(url, "fresh-keys.lua", keyPrefix, duration);
    }

    /**
     * @param url a loopback URL
     * @param key the key of every request
     * @param duration how long
     * @return what wrk measured
     */
    Result oneKey(URI url, String key, Duration duration) throws IOException, InterruptedException {
        return run(url, "one-key.lua", key, duration);
    }

    private Result run(URI url, String script, String argument, Duration duration) throws IOException, InterruptedException {
        if (!List.of("localhost", "127.0.0.1").contains(url.getHost())) {
            throw new IllegalArgumentException("loopback only: " + url);
        }
        List<String> command = new ArrayList<>(List.of("wrk", "-t1", "-c" + connections,
                "-d" + duration.toSeconds() + "s", "--timeout", "10s", "--latency",
                "-s", work.resolve(script).toString(), url.toString(), "--", argument));
        Path log = work.resolve("wrk-last.log");
        ChildProcess wrk;
        try {
            wrk = ChildProcess.start(command, log);
        } catch (IOException notInstalled) {
            throw new IllegalStateException("wrk is needed for the HTTP benchmarks: apt-get install -y wrk", notInstalled);
        }
        int exit = wrk.awaitExit(duration.plusSeconds(30));
        String output = Files.readString(log);
        if (exit != 0) {
            throw new IllegalStateException("wrk exited with " + exit + ":\n" + output);
        }
        return Result.parse(output);
    }

    /**
     * What one wrk run measured.
     *
     * @param requests the responses received
     * @param perSecond responses a second
     * @param p50Millis the median latency
     * @param p99Millis the 99th percentile latency
     * @param non2xx responses whose status was not 2xx or 3xx
     * @param socketErrors connect, read, write errors and timeouts
     * @param output wrk's own report
     */
    record Result(long requests, double perSecond, double p50Millis, double p99Millis, long non2xx, long socketErrors,
                  String output) {

        static Result parse(String output) {
            Matcher requests = find(REQUESTS, output);
            Matcher rate = find(RATE, output);
            Matcher non2xx = NON_2XX.matcher(output);
            Matcher errors = SOCKET_ERRORS.matcher(output);
            long socketErrors = 0;
            if (errors.find()) {
                for (int group = 1; group <= 4; group++) {
                    socketErrors += Long.parseLong(errors.group(group));
                }
            }
            return new Result(Long.parseLong(requests.group(1)), Double.parseDouble(rate.group(1)),
                    percentile(output, "50%"), percentile(output, "99%"),
                    non2xx.find() ? Long.parseLong(non2xx.group(1)) : 0, socketErrors, output);
        }

        private static Matcher find(Pattern pattern, String output) {
            Matcher matcher = pattern.matcher(output);
            if (!matcher.find()) {
                throw new IllegalStateException("no " + pattern + " in wrk's report:\n" + output);
            }
            return matcher;
        }

        private static double percentile(String output, String which) {
            Matcher matcher = find(Pattern.compile("^\\s+" + which + "\\s+([\\d.]+)(us|ms|s|m)\\s*$", Pattern.MULTILINE),
                    output);
            double value = Double.parseDouble(matcher.group(1));
            return switch (matcher.group(2)) {
                case "us" -> value / 1000;
                case "ms" -> value;
                case "s" -> value * 1000;
                default -> value * 60_000;
            };
        }
    }
}
