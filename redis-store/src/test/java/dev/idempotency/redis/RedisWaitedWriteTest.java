package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.StoredOutcome;

/**
 * {@code wait-replicas=1} with the replica frozen ({@code SIGSTOP}), so that no honest {@code WAIT}
 * can succeed: a {@code WAIT} must never run on a reconnected socket (where it would report the
 * replica at once), a blocking {@code WAIT} must not hold up other calls, a {@code WAIT} the
 * client gives up on gives the claim back, and a completion run again is confirmed only by a
 * {@code WAIT} that counts it. And a script with no time left is not sent.
 */
class RedisWaitedWriteTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final Duration WAIT = Duration.ofMillis(500);

    static RedisServer master;
    static RedisServer replica;
    static TcpProxy proxy;
    private final List<RedisConnection> connections = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        master = RedisServer.start("waited-master", 7333);
        replica = RedisServer.start("waited-replica", 7334, "--replicaof", "127.0.0.1", "7333");
        master.await("the replica in sync", Duration.ofSeconds(20),
                () -> master.cli("INFO", "replication").contains("connected_slaves:1")
                        && replica.cli("INFO", "replication").contains("master_link_status:up"));
        proxy = new TcpProxy(7335, 7333);
    }

    @AfterAll
    static void stop() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
        if (replica != null) {
            replica.signal("CONT");
            replica.stop();
        }
        if (master != null) {
            master.stop();
        }
    }

    @BeforeEach
    void freezeTheReplica() throws Exception {
        replica.signal("STOP");
    }

    @AfterEach
    void thawTheReplica() throws Exception {
        connections.forEach(RedisConnection::close);
        proxy.onNextWait(TcpProxy.OnWait.FORWARD);
        replica.signal("CONT");
    }

    private IdempotencyStore store(String uri) {
        Map<String, String> settings = master.settings("idempotency.redis.uri", uri, "idempotency.redis.timeout",
                TIMEOUT.toString(), "idempotency.redis.wait-replicas", "1", "idempotency.redis.wait-timeout", WAIT.toString());
        RedisConnection connection = new RedisConnection(RedisSettings.load(key -> Optional.ofNullable(settings.get(key))));
        connections.add(connection);
        return new RedisIdempotencyStore(connection);
    }

    private static String key() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    private static boolean onTheMaster(String key) {
        return master.cli("EXISTS", "idem:" + key).equals("1");
    }

    @Test
    void aConnectionCutBetweenTheScriptAndItsWaitFailsTheClaimAndGivesItBack() {
        IdempotencyStore store = store(proxy.uri());
        assertThat(store.find(key())).isEmpty(); // connected
        String key = key();
        proxy.onNextWait(TcpProxy.OnWait.CUT);

        assertThatThrownBy(() -> store.claim(key, "fp", Duration.ofMinutes(1)))
                .as("the replica is frozen: no WAIT may report it").isInstanceOf(IdempotencyStoreException.class)
                .hasMessageContaining("IDEMP08");
        assertThat(proxy.broken()).as("the WAIT was cut").isPositive();
        assertThat(onTheMaster(key)).as("the claim was given back").isFalse();
    }

    @Test
    void aConnectionCutRightAfterTheScriptsAnswerNeverLetsAWaitReportTheFrozenReplica() {
        IdempotencyStore store = store(proxy.uri());
        assertThat(store.find(key())).isEmpty();
        for (int i = 0; i < 20; i++) {
            String key = key();
            proxy.onNextWait(TcpProxy.OnWait.CUT_AFTER_WRITE);
            int broken = proxy.broken();
            ClaimResult claim;
            try {
                claim = store.claim(key, "fp", Duration.ofMinutes(1));
            } catch (IdempotencyStoreException expected) {
                claim = null;
            }
            assertThat(claim).as("round " + i + ": acquired and 'replicated' to a frozen replica").isNull();
            assertThat(proxy.broken()).as("round " + i + ": the connection was cut").isEqualTo(broken + 1);
            awaitStoreBack(store);
            assertThat(onTheMaster(key)).as("round " + i + ": a claim left that nobody holds").isFalse();
        }
    }

    /** Until the store's connection answers again (Lettuce reconnects by itself). */
    private static void awaitStoreBack(IdempotencyStore store) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            try {
                store.find(key());
                return;
            } catch (IdempotencyStoreException notYet) {
                assertThat(System.nanoTime()).as("reconnected within 10 s").isLessThan(deadline);
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    @Test
    void aWaitTheClientGivesUpOnGivesTheClaimBack() {
        IdempotencyStore store = store(proxy.uri());
        assertThat(store.find(key())).isEmpty();
        String key = key();
        proxy.onNextWait(TcpProxy.OnWait.SWALLOW);

        assertThatThrownBy(() -> store.claim(key, "fp", Duration.ofMinutes(1)))
                .isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("given back");
        assertThat(onTheMaster(key)).as("no claim left that nobody holds").isFalse();
    }

    @Test
    void blockingWaitsDoNotHoldUpOtherClaimsSoNoneTimesOutLeavingItsKeyHeldByNobody() throws Exception {
        IdempotencyStore store = store(master.uri());
        assertThat(store.find(key())).isEmpty();
        int threads = 8;
        List<String> keys = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            keys.add(key());
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Throwable> failures = new ArrayList<>();
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<ClaimResult>> claims = new ArrayList<>();
            for (String key : keys) {
                claims.add(pool.submit(() -> {
                    start.await();
                    return store.claim(key, "fp", Duration.ofMinutes(1));
                }));
            }
            start.countDown();
            for (Future<ClaimResult> claim : claims) {
                try {
                    assertThat(claim.get(60, TimeUnit.SECONDS)).as("acknowledged by a frozen replica?").isNull();
                } catch (java.util.concurrent.ExecutionException e) {
                    failures.add(e.getCause());
                }
            }
        } finally {
            pool.shutdownNow();
        }
        master.await("no client blocked in WAIT", Duration.ofSeconds(20),
                () -> master.cli("INFO", "clients").contains("blocked_clients:0"));

        assertThat(failures).hasSize(threads).allSatisfy(failure -> assertThat(failure)
                .isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("IDEMP0822"));
        assertThat(keys).as("keys left in progress, held by nobody").noneMatch(RedisWaitedWriteTest::onTheMaster);
    }

    /**
     * A completion run again (same owner, same outcome) is answered as done; its {@code WAIT} must
     * then count a write of its own: on another connection, one that wrote nothing or only older
     * writes, a {@code WAIT} reports the frozen replica at once. Redis 7.2 and later leave a
     * client's write offset where it was after a command that propagated nothing; Redis 7.0 (these
     * machines' 7.0.15) moves it to the master's after every command, so there the repeat's
     * {@code WAIT} waits for the first completion too, and this test passes with or without the
     * write: it guards the newer servers.
     */
    @Test
    void aCompletionRunAgainOnAnotherConnectionIsConfirmedOnlyOnceItsRecordReachedTheReplicas() throws Exception {
        replica.signal("CONT");
        IdempotencyStore store = store(master.uri());
        String key = key();
        String owner = ((ClaimResult.Acquired) store.claim(key, "fp", Duration.ofMinutes(1))).owner();
        replica.signal("STOP");
        StoredOutcome outcome = StoredOutcomes.sample();
        assertThatThrownBy(() -> store.complete(key, owner, outcome, Duration.ofMinutes(10)))
                .isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("IDEMP0822");

        // the connection that carried the completion is taken by another waited write, blocked in its WAIT
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            Future<?> holding = other.submit(() -> store.claim(key(), "fp", Duration.ofMinutes(1)));
            master.await("a waited claim blocked in WAIT", Duration.ofSeconds(5),
                    () -> master.cli("INFO", "clients").contains("blocked_clients:1"));

            assertThatThrownBy(() -> store.complete(key, owner, outcome, Duration.ofMinutes(10)))
                    .as("the completion run again, confirmed while the replica is frozen")
                    .isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("IDEMP0822");
            holding.cancel(false);
        } finally {
            other.shutdown();
            assertThat(other.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    /**
     * A script whose time is up before it is sent is not sent: sent and then given up on, it could
     * still claim or take a key over on the server, under an owner token nobody holds. (Whether a
     * command cancelled at once still reaches the server is a race with Lettuce's event loop, so
     * the commands are a double that records what is sent.)
     */
    @Test
    void aScriptWithNoTimeLeftIsNotSent() throws Exception {
        RedisClient client = RedisClient.create(RedisURI.Builder.redis("127.0.0.1", 7333)
                .withAuthentication(RedisServer.USER, RedisServer.PASSWORD).build());
        try {
            RedisLink link = new RedisLink(client.connect(ByteArrayCodec.INSTANCE), TIMEOUT);
            List<String> sent = new ArrayList<>();
            @SuppressWarnings("unchecked")
            RedisClusterAsyncCommands<byte[], byte[]> recorded = (RedisClusterAsyncCommands<byte[], byte[]>) Proxy
                    .newProxyInstance(getClass().getClassLoader(), new Class<?>[] {RedisClusterAsyncCommands.class},
                            (proxy, method, args) -> {
                                sent.add(method.getName());
                                return null;
                            });
            byte[] key = bytes("idem:" + key());

            Throwable thrown = catchThrowable(() -> link.runWithin(Duration.ZERO, recorded, RedisScript.CLAIM,
                    ScriptOutputType.MULTI, key, bytes("fp"), bytes("owner"), bytes("60000"), bytes("60000")));
            assertThat(sent).as("commands sent with no time left").isEmpty();
            assertThat(thrown).isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("IDEMP0821");
        } finally {
            client.shutdown();
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void anApplicationsClientThatReconnectsAtLeastOnceIsWarnedAbout() {
        RedisClient application = RedisClient.create(RedisURI.create("redis://" + RedisServer.USER + ":"
                + RedisServer.PASSWORD + "@127.0.0.1:7333"));
        try (LogCapture log = new LogCapture()) {
            Map<String, String> settings = Map.of("idempotency.redis.wait-replicas", "1");
            RedisConnection connection = new RedisConnection(application,
                    RedisSettings.load(key -> Optional.ofNullable(settings.get(key))));
            connections.add(connection);
            assertThat(new RedisIdempotencyStore(connection).find(key())).isEmpty();

            assertThat(log.messages(Level.WARNING, "IDEMP0833")).hasSize(1)
                    .allSatisfy(m -> assertThat(m).contains("autoReconnect").contains("wait-replicas"));
        } finally {
            connections.forEach(RedisConnection::close);
            connections.clear();
            application.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
