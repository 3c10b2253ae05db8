package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.RecordState;

/** The store contract on one real Redis 7 server (its own process, loopback, ACL user and requirepass). */
class RedisStoreContractTest extends RedisContractTest {

    static RedisServer server;
    static RedisConnection connection;

    @BeforeAll
    static void startServer() throws Exception {
        server = RedisServer.start("contract", 7301);
        connection = new RedisConnection(settings(server.settings()));
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (connection != null) {
            connection.close();
        }
        if (server != null) {
            server.stop();
        }
    }

    @Override
    protected RedisConnection connection() {
        return connection;
    }

    @Override
    protected String admin(String... args) {
        return server.cli(args);
    }

    @Override
    protected void flushScripts() {
        server.cli("SCRIPT", "FLUSH");
    }

    @Override
    protected boolean scriptKnownWhere(String redisKey, RedisScript script) {
        return server.cli("SCRIPT", "EXISTS", script.sha()).equals("1");
    }

    /** @return how often the server ran each command so far ({@code INFO commandstats}: {@code set}, {@code evalsha}, ...) */
    private static Map<String, Long> commandCalls() {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : server.cli("INFO", "commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                String count = line.substring(line.indexOf("calls=") + "calls=".length());
                calls.put(name, Long.parseLong(count.substring(0, count.indexOf(','))));
            }
        }
        return calls;
    }

    /** @return how many more times each of the commands ran while the work ran */
    private static Map<String, Long> callsDuring(Runnable work, String... commands) {
        Map<String, Long> before = commandCalls();
        work.run();
        Map<String, Long> after = commandCalls();
        Map<String, Long> more = new TreeMap<>();
        for (String command : commands) {
            more.put(command, after.getOrDefault(command, 0L) - before.getOrDefault(command, 0L));
        }
        return more;
    }

    @Test
    void aFreeKeyACompletedOneAndAnotherRequestsClaimCostOnePlainSetAndNoScript() {
        String key = freshKey();
        String[] owner = new String[1];

        assertThat(callsDuring(() -> owner[0] = acquire(key, "fp"), "set", "evalsha", "eval"))
                .as("a free key").containsExactlyInAnyOrderEntriesOf(Map.of("set", 1L, "evalsha", 0L, "eval", 0L));
        assertThat(callsDuring(() -> assertThat(store().claim(key, "fp-other", LONG)).isInstanceOf(ClaimResult.Existing.class),
                "set", "evalsha", "eval")).as("another request's claim: a reused key")
                .containsExactlyInAnyOrderEntriesOf(Map.of("set", 1L, "evalsha", 0L, "eval", 0L));
        store().complete(key, owner[0], sampleOutcome(), LONG);
        assertThat(callsDuring(() -> assertThat(((ClaimResult.Existing) store().claim(key, "fp", LONG)).record().state())
                .isEqualTo(RecordState.COMPLETED), "set", "evalsha", "eval")).as("a replay")
                .containsExactlyInAnyOrderEntriesOf(Map.of("set", 1L, "evalsha", 0L, "eval", 0L));
    }

    @Test
    void aClaimOfTheSameRequestInProgressAsksTheScriptWhichJudgesItsLeaseByTheServersClock() {
        String key = freshKey();
        acquire(key, "fp", Duration.ofMillis(300), LONG);

        assertThat(callsDuring(() -> assertThat(store().claim(key, "fp", Duration.ofMillis(300), LONG))
                .as("within the lease").isInstanceOf(ClaimResult.Existing.class), "set", "evalsha"))
                .containsExactlyInAnyOrderEntriesOf(Map.of("set", 1L, "evalsha", 1L));
        sleep(Duration.ofMillis(400));
        ClaimResult takeover = store().claim(key, "fp", Duration.ofMillis(300), LONG);
        assertThat(takeover).as("the lease ran out, 300 ms before a record kept for " + LONG)
                .isInstanceOf(ClaimResult.Acquired.class);
        assertThat(((ClaimResult.Acquired) takeover).takeover()).isTrue();
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
