package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;

/** Redis down, gone midway or frozen: every call fails with a store exception within the timeout, never hangs. */
class RedisOutageTest {

    private static final Duration TIMEOUT = Duration.ofMillis(500);
    /** What a failing call may take beyond the timeout (a JVM on a busy two-core machine). */
    private static final Duration SLACK = Duration.ofMillis(700);

    private RedisServer server;
    private RedisConnection connection;

    @AfterEach
    void stop() throws Exception {
        if (connection != null) {
            connection.close();
        }
        if (server != null) {
            server.signal("CONT");
            server.stop();
        }
    }

    private static RedisConnection connect(Map<String, String> settings) {
        return new RedisConnection(RedisSettings.load(key -> Optional.ofNullable(settings.get(key))));
    }

    private static String key() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    /** @return how long the failing call took */
    private static Duration failsWithAStoreException(Runnable call) {
        long started = System.nanoTime();
        assertThatThrownBy(call::run).isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("IDEMP08");
        return Duration.ofNanos(System.nanoTime() - started);
    }

    @Test
    void aServerThatIsDownFailsEveryCallWithinTheTimeout() {
        assertThat(RedisServer.listening(7322)).isFalse();
        connection = connect(Map.of("idempotency.redis.uri", "redis://127.0.0.1:7322", "idempotency.redis.timeout",
                TIMEOUT.toString()));
        connection.start(); // as at deployment: the client's one-time start-up is paid there, and logged as IDEMP0830
        IdempotencyStore store = new RedisIdempotencyStore(connection);

        assertThat(failsWithAStoreException(() -> store.claim(key(), "fp", Duration.ofMinutes(1))))
                .isLessThan(TIMEOUT.plus(SLACK));
        assertThat(failsWithAStoreException(() -> store.find(key()))).isLessThan(TIMEOUT.plus(SLACK));
    }

    @Test
    void aServerThatStopsFailsCallsWithinTheTimeoutAndTheStoreWorksAgainOnceItIsBack() throws Exception {
        server = RedisServer.start("outage", 7321);
        connection = connect(server.settings("idempotency.redis.timeout", TIMEOUT.toString()));
        IdempotencyStore store = new RedisIdempotencyStore(connection);
        assertThat(store.claim(key(), "fp", Duration.ofMinutes(1))).isInstanceOf(ClaimResult.Acquired.class);

        server.stop();
        assertThat(failsWithAStoreException(() -> store.claim(key(), "fp", Duration.ofMinutes(1))))
                .isLessThan(TIMEOUT.plus(SLACK));
        assertThat(failsWithAStoreException(() -> store.release(key(), "owner"))).isLessThan(TIMEOUT.plus(SLACK));

        server.start(); // empty: no records, no scripts (the next call runs them with EVAL)
        String key = key();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        ClaimResult claim = null;
        while (claim == null) {
            try {
                claim = store.claim(key, "fp", Duration.ofMinutes(1));
            } catch (IdempotencyStoreException notYet) {
                assertThat(System.nanoTime()).as("reconnected within 20 s").isLessThan(deadline);
                Thread.sleep(100);
            }
        }
        assertThat(claim).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(store.complete(key, ((ClaimResult.Acquired) claim).owner(), StoredOutcomes.sample(), Duration.ofMinutes(1)))
                .isTrue();
    }

    @Test
    void aServerThatStopsAnsweringFailsCallsWithinTheTimeout() throws Exception {
        server = RedisServer.start("frozen", 7323);
        connection = connect(server.settings("idempotency.redis.timeout", TIMEOUT.toString()));
        IdempotencyStore store = new RedisIdempotencyStore(connection);
        String key = key();
        String owner = ((ClaimResult.Acquired) store.claim(key, "fp", Duration.ofMinutes(1))).owner();

        server.signal("STOP");
        Duration took = failsWithAStoreException(() -> store.complete(key, owner, StoredOutcomes.sample(),
                Duration.ofMinutes(1)));
        assertThat(took).isGreaterThanOrEqualTo(TIMEOUT.minusMillis(50)).isLessThan(TIMEOUT.plus(SLACK));
        assertThatThrownBy(() -> store.find(key)).hasMessageContaining("IDEMP0821").hasMessageContaining("find");

        server.signal("CONT");
        // the completion that timed out had been sent: the thawed server applies it. A timed-out call
        // may have taken effect (docs/stores/redis.md, residual windows): the owner's retry of the very
        // same completion is answered as done, another outcome is refused
        server.await("the late completion lands", Duration.ofSeconds(5), () -> store.find(key)
                .map(record -> record.state() == dev.idempotency.spi.RecordState.COMPLETED).orElse(false));
        assertThat(store.find(key).orElseThrow().outcome()).isEqualTo(StoredOutcomes.sample());
        assertThat(store.complete(key, owner, StoredOutcomes.sample(), Duration.ofMinutes(1))).isTrue();
        assertThat(store.complete(key, owner, dev.idempotency.spi.StoredOutcome.withoutBody(500, Map.of()),
                Duration.ofMinutes(1))).isFalse();
        assertThat(store.find(key).orElseThrow().outcome()).isEqualTo(StoredOutcomes.sample());
    }

    @Test
    void tenCallsOnAServerThatAcceptsAndNeverAnswersFailWithinTwiceTheTimeoutNotOneTimeoutEach() throws Exception {
        Duration timeout = Duration.ofSeconds(1);
        List<Socket> accepted = new CopyOnWriteArrayList<>();
        try (ServerSocket silent = new ServerSocket(7324, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                while (!silent.isClosed()) {
                    try {
                        accepted.add(silent.accept()); // holds the socket, never reads, never answers
                    } catch (IOException closed) {
                        return;
                    }
                }
            }, "silent-acceptor");
            acceptor.setDaemon(true);
            acceptor.start();
            connection = connect(Map.of("idempotency.redis.uri", "redis://127.0.0.1:7324", "idempotency.redis.timeout",
                    timeout.toString()));
            connection.start(); // the client's one-time start-up, as at deployment
            IdempotencyStore store = new RedisIdempotencyStore(connection);

            int threads = 10;
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Duration>> calls = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    calls.add(pool.submit(() -> {
                        start.await();
                        return failsWithAStoreException(() -> store.claim(key(), "fp", Duration.ofMinutes(1)));
                    }));
                }
                start.countDown();
                Duration slowest = Duration.ZERO;
                for (Future<Duration> call : calls) {
                    Duration took = call.get(60, TimeUnit.SECONDS);
                    slowest = took.compareTo(slowest) > 0 ? took : slowest;
                }
                assertThat(slowest).as("the slowest of " + threads + " concurrent calls (a bound, not a speed target)")
                        .isLessThan(timeout.multipliedBy(2));
            } finally {
                pool.shutdownNow();
            }
        } finally {
            for (Socket socket : accepted) {
                socket.close();
            }
        }
    }

    @Test
    void aConnectionLettuceIsReconnectingIsNotThrownAwayAndBuiltAgain() throws Exception {
        server = RedisServer.start("reconnecting", 7325);
        try (LogCapture log = new LogCapture()) {
            connection = connect(server.settings("idempotency.redis.timeout", TIMEOUT.toString()));
            IdempotencyStore store = new RedisIdempotencyStore(connection);
            assertThat(store.claim(key(), "fp", Duration.ofMinutes(1))).isInstanceOf(ClaimResult.Acquired.class);

            server.stop();
            for (int i = 0; i < 10; i++) {
                assertThat(failsWithAStoreException(() -> store.find(key()))).isLessThan(TIMEOUT.plus(SLACK));
            }
            server.start();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            ClaimResult claim = null;
            while (claim == null) {
                try {
                    claim = store.claim(key(), "fp", Duration.ofMinutes(1));
                } catch (IdempotencyStoreException notYet) {
                    assertThat(System.nanoTime()).as("reconnected within 20 s").isLessThan(deadline);
                    Thread.sleep(100);
                }
            }
            assertThat(claim).isInstanceOf(ClaimResult.Acquired.class);
            assertThat(log.count("IDEMP0827")).as("connected once: Lettuce reconnected the connection by itself")
                    .isEqualTo(1);
        }
    }
}
