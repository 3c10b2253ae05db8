package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;

/**
 * A Redis that may evict keys would silently free live claims: the store refuses one whose
 * {@code maxmemory-policy} is not {@code noeviction} unless {@code idempotency.redis.allow-eviction=true};
 * a {@code noeviction} Redis that is full fails writes closed.
 */
class RedisEvictionPolicyTest {

    private final List<RedisConnection> connections = new ArrayList<>();
    private RedisServer server;
    private LogCapture log;

    @AfterEach
    void stop() throws Exception {
        connections.forEach(RedisConnection::close);
        if (log != null) {
            log.close();
        }
        if (server != null) {
            server.stop();
        }
    }

    private IdempotencyStore store(String... more) {
        Map<String, String> settings = server.settings(more);
        RedisConnection connection = new RedisConnection(RedisSettings.load(key -> Optional.ofNullable(settings.get(key))));
        connections.add(connection);
        return new RedisIdempotencyStore(connection);
    }

    private static String key() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    @Test
    void aRedisThatMayEvictIsRefusedWithASevereCodedMessageUnlessEvictionIsAllowedExplicitly() throws Exception {
        server = RedisServer.start("evicting", 7361, "--maxmemory", "3mb", "--maxmemory-policy", "volatile-lru");
        log = new LogCapture();
        IdempotencyStore refusing = store();

        assertThatThrownBy(() -> refusing.claim(key(), "fp", Duration.ofMinutes(1)))
                .isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("IDEMP0831")
                .hasMessageContaining("volatile-lru").hasMessageContaining("noeviction")
                .hasMessageContaining("idempotency.redis.allow-eviction=true");
        assertThatThrownBy(() -> refusing.find(key())).as("every call, not just the first")
                .isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("IDEMP0831");
        assertThat(log.messages(Level.SEVERE, "IDEMP0831")).as("logged SEVERE, once")
                .hasSize(1).allSatisfy(m -> assertThat(m).contains("volatile-lru"));

        IdempotencyStore allowing = store("idempotency.redis.allow-eviction", "true");
        assertThat(allowing.claim(key(), "fp", Duration.ofMinutes(1))).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(log.messages(Level.WARNING, "IDEMP0832")).as("allowed, but said so")
                .isNotEmpty().allSatisfy(m -> assertThat(m).contains("volatile-lru"));

        server.cli("CONFIG", "SET", "maxmemory-policy", "noeviction");
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        ClaimResult claim = null;
        while (claim == null) {
            try {
                claim = refusing.claim(key(), "fp", Duration.ofMinutes(1));
            } catch (IdempotencyStoreException stillRefused) {
                assertThat(stillRefused).hasMessageContaining("IDEMP0831");
                assertThat(System.nanoTime()).as("checked again within 10 s").isLessThan(deadline);
                Thread.sleep(100);
            }
        }
        assertThat(claim).as("once the server no longer evicts").isInstanceOf(ClaimResult.Acquired.class);
    }

    @Test
    void aServerThatComesBackWithAnEvictionPolicyIsRefusedAfterTheReconnect() throws Exception {
        server = RedisServer.start("evicts-later", 7363);
        IdempotencyStore store = store();
        assertThat(store.claim(key(), "fp", Duration.ofMinutes(1))).isInstanceOf(ClaimResult.Acquired.class);

        server.stop();
        server = RedisServer.start("evicts-later", 7363, "--maxmemory-policy", "allkeys-lru");
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        IdempotencyStoreException refused = null;
        while (refused == null) {
            try {
                store.find(key());
                org.assertj.core.api.Assertions.fail("a call went through to a server that may evict");
            } catch (IdempotencyStoreException e) {
                if (e.getMessage().contains("IDEMP0831")) {
                    refused = e;
                } else { // not reconnected yet
                    assertThat(System.nanoTime()).as("reconnected within 20 s").isLessThan(deadline);
                    Thread.sleep(50);
                }
            }
        }
        assertThat(refused).hasMessageContaining("allkeys-lru");
    }

    /**
     * After a reconnect, the first call checks the server's eviction policy; the calls that came
     * meanwhile went on under the verdict from before the reconnect, and wrote claims to a server
     * that may evict them. Every call now waits for the check its reconnect made due.
     */
    @Test
    void callsWhileTheCheckAfterAReconnectRunsWaitForItsVerdict() throws Exception {
        server = RedisServer.start("checks-after-reconnect", 7364, "--enable-debug-command", "yes");
        IdempotencyStore store = store();
        assertThat(store.claim(key(), "fp", Duration.ofMinutes(1))).isInstanceOf(ClaimResult.Acquired.class);
        server.cli("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
        server.cli("CLIENT", "KILL", "TYPE", "normal"); // the store's connection: it reconnects
        Thread.sleep(500);

        ExecutorService calls = Executors.newFixedThreadPool(3);
        try {
            Future<?> stall = calls.submit(() -> server.cli("DEBUG", "SLEEP", "0.8")); // the check's INFO waits
            Thread.sleep(150);
            List<Future<ClaimResult>> claims = List.of(
                    calls.submit(() -> store.claim(key(), "fp", Duration.ofMinutes(1))),
                    calls.submit(() -> {
                        Thread.sleep(100); // after the first took the check
                        return store.claim(key(), "fp", Duration.ofMinutes(1));
                    }));
            stall.get(10, TimeUnit.SECONDS);
            for (Future<ClaimResult> claim : claims) {
                assertThatThrownBy(() -> claim.get(10, TimeUnit.SECONDS)).as("no claim written to a server that may evict")
                        .hasCauseInstanceOf(IdempotencyStoreException.class).hasMessageContaining("IDEMP0831");
            }
        } finally {
            calls.shutdownNow();
        }
    }

    @Test
    void aFullNoevictionRedisFailsClaimsClosedAndNeverHandsOutAKeyInProgress() throws Exception {
        server = RedisServer.start("full", 7362, "--maxmemory", "3mb", "--maxmemory-policy", "noeviction");
        IdempotencyStore store = store();
        String live = key();
        String lapsed = key();
        assertThat(store.claim(live, "fp", Duration.ofMinutes(1))).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(store.claim(lapsed, "fp", Duration.ofMillis(200), Duration.ofMinutes(1)))
                .isInstanceOf(ClaimResult.Acquired.class);
        String done = key();
        String doneOwner = ((ClaimResult.Acquired) store.claim(done, "fp", Duration.ofMinutes(1))).owner();
        assertThat(store.complete(done, doneOwner, StoredOutcome.of(201, Map.of(), new byte[] {42}), Duration.ofMinutes(5)))
                .isTrue();

        server.cli("EVAL", "redis.call('SET', 'filler', string.rep('x', 4 * 1024 * 1024)) return 1", "0");
        assertThat(server.cli("INFO", "memory")).contains("maxmemory_policy:noeviction");
        Thread.sleep(300); // the second lease runs out

        String fresh = key();
        assertThatThrownBy(() -> store.claim(fresh, "fp", Duration.ofMinutes(1)))
                .isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("OOM");
        assertThat(store.find(fresh)).isEmpty();
        // A full Redis refuses the claim's SET before it looks at NX; a key with a record is still
        // answered from it, as the docs promise (a claim that needs no write).
        assertThat(store.claim(done, "fp", Duration.ofMinutes(1))).as("a replay of a completed key")
                .isInstanceOfSatisfying(ClaimResult.Existing.class, existing -> {
                    assertThat(existing.record().state()).isEqualTo(RecordState.COMPLETED);
                    assertThat(existing.record().outcome().body()).containsExactly(42);
                });
        assertThat(store.claim(live, "fp", Duration.ofMinutes(1))).as("the same request in progress, within its lease")
                .isInstanceOfSatisfying(ClaimResult.Existing.class,
                        existing -> assertThat(existing.record().state()).isEqualTo(RecordState.IN_PROGRESS));
        assertThat(store.claim(live, "other", Duration.ofMinutes(1))).as("another request on a key in progress")
                .isInstanceOf(ClaimResult.Existing.class);
        assertThatThrownBy(() -> store.claim(lapsed, "fp", Duration.ofMinutes(1)))
                .as("a takeover needs a write: it fails closed, never acquired")
                .isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("OOM");
    }
}
