package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Level;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.claim.EventPublisher;
import dev.idempotency.claim.InProgressWaits;
import dev.idempotency.claim.OwnedClaim;
import dev.idempotency.claim.ReleaseRetries;
import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.config.PolicyResolver;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyStoreException;

/**
 * A mark that reached Redis while its answer did not, the server dying in between (killed with
 * {@code appendfsync always}, as in the fault campaign of stop 33): the work rolls back, and the
 * release after the rollback meets the dead server. Once the server is back (its append-only file
 * holds the mark), the key must be free, not marked executed for its ttl: the release is tried
 * again until the server answers. To have the answer lost for sure, the mark waits for a replica
 * ({@code wait-replicas=1}) that was detached after the claim, and the master is killed while the
 * mark's {@code WAIT} blocks, once the mark is on it.
 */
class MarkLostWithItsServerTest {

    static class Payments {
        @Idempotent(lease = "PT30S")
        public void pay() {
        }
    }

    private RedisServer master;
    private RedisServer replica;
    private RedisConnection connection;
    private RedisIdempotencyStore store;
    private final ReleaseRetries retries = new ReleaseRetries();
    private final LogCapture log = new LogCapture("dev.idempotency.claim");

    @BeforeEach
    void start() throws Exception {
        master = RedisServer.start("lost-mark-master", 7393, "--appendonly", "yes", "--appendfsync", "always");
        replica = RedisServer.start("lost-mark-replica", 7394, "--replicaof", "127.0.0.1", "7393");
        master.await("the replica acknowledging", Duration.ofSeconds(20),
                () -> "1".equals(master.cli("WAIT", "1", "1000")));
        connection = new RedisConnection(RedisSettings.load(key -> Optional.ofNullable(master.settings(
                "idempotency.redis.wait-replicas", "1", "idempotency.redis.wait-timeout", "PT10S").get(key))));
        store = new RedisIdempotencyStore(connection);
    }

    @AfterEach
    void stop() throws Exception {
        retries.close();
        log.close();
        if (connection != null) {
            connection.close();
        }
        replica.stop();
        master.stop();
    }

    /** @return the policy of {@link Payments#pay()} with no configuration */
    private static IdempotencyPolicy payPolicy() throws NoSuchMethodException {
        return new PolicyResolver(key -> Optional.empty()).resolve(Payments.class, Payments.class.getMethod("pay"));
    }

    /** @return the record's state byte (1 in progress, 2 executed, 3 completed), read on the server; 0: none */
    private long state(String key) {
        String state = master.cli("EVAL", "local v = redis.call('GET', KEYS[1]); if not v then return 0 end;"
                + " return string.byte(v, 2)", "1", "idem:" + key);
        return state.matches("\\d+") ? Long.parseLong(state) : -1;
    }

    /**
     * A mark whose {@code WAIT} broke (its connection killed while the frozen replica kept it
     * waiting) is on the master alone, and the library asks once more: a mark's answer may have
     * been lost after it was applied. The repeat must wait for a replica too, or the work would
     * commit with a mark that a failover loses, and a retry run it again. A {@code WAIT} on a
     * connection that wrote nothing reports a frozen replica at once (seen with {@code redis-cli}
     * on Redis 7.0.15); the repeat writes its record again so that its {@code WAIT} holds on any
     * connection. (Before that write, this test passed too: the repeat's connection had written
     * before, so its {@code WAIT} waited; the test guards the outcome, not the means.)
     */
    @Test
    void aMarkRepeatedAfterItsWaitBrokeIsNotMarkedWhileNoReplicaHasIt() throws Exception {
        RedisConnection shortWaits = new RedisConnection(RedisSettings.load(key -> Optional.ofNullable(master.settings(
                "idempotency.redis.wait-replicas", "1", "idempotency.redis.wait-timeout", "PT3S").get(key))));
        try {
            RedisIdempotencyStore waiting = new RedisIdempotencyStore(shortWaits);
            IdempotencyPolicy policy = payPolicy();
            String key = UUID.randomUUID().toString().replace("-", "");
            String owner = ((ClaimResult.Acquired) waiting.claim(key, "fp", policy.lease(), policy.ttl())).owner();
            OwnedClaim claim = new OwnedClaim(waiting, policy, key, owner, EventPublisher.NONE, new InProgressWaits(1),
                    retries, false);
            replica.signal("STOP");
            try {
                CompletableFuture<Boolean> mark = CompletableFuture.supplyAsync(claim::markExecuted);
                master.await("the mark's WAIT blocking", Duration.ofSeconds(10), () -> waitingClient() != null);
                master.cli("CLIENT", "KILL", "ID", waitingClient());

                assertThatThrownBy(mark::join).as("never marked while only the master has it")
                        .hasCauseInstanceOf(IdempotencyStoreException.class);
                assertThat(state(key)).as("the mark on the master").isEqualTo(2);
                assertThat(claim.executed()).isFalse();
            } finally {
                replica.signal("CONT");
            }
        } finally {
            shortWaits.close();
        }
    }

    /** @return the id of the client blocked in {@code WAIT} on the master, or {@code null} */
    private String waitingClient() {
        return master.cli("CLIENT", "LIST").lines().filter(line -> line.contains(" flags=b ") && line.contains(" cmd=wait"))
                .map(line -> line.replaceFirst("^id=(\\d+) .*", "$1")).findFirst().orElse(null);
    }

    @Test
    void theKeyIsFreeOnceTheServerIsBackAndNothingCommitted() throws Exception {
        IdempotencyPolicy policy = payPolicy();
        String key = UUID.randomUUID().toString().replace("-", "");
        String owner = ((ClaimResult.Acquired) store.claim(key, "fp", policy.lease(), policy.ttl())).owner();
        OwnedClaim claim = new OwnedClaim(store, policy, key, owner, EventPublisher.NONE, new InProgressWaits(1), retries,
                false);
        replica.cli("REPLICAOF", "NO", "ONE"); // the mark's WAIT now blocks

        CompletableFuture<Boolean> mark = CompletableFuture.supplyAsync(claim::markExecuted);
        master.await("the mark on the master", Duration.ofSeconds(10), () -> state(key) == 2);
        master.kill();

        assertThatThrownBy(mark::join).hasCauseInstanceOf(IdempotencyStoreException.class);
        claim.releaseAfterRollback(); // what the binding does once the work rolled back
        assertThat(log.messages(Level.SEVERE, "IDEMP0404")).singleElement().asString()
                .contains("retried in the background");
        master.start(); // on its folder: the append-only file holds the mark

        master.await("the key free", Duration.ofSeconds(15), () -> state(key) == 0);
        assertThat(log.messages(Level.INFO, "IDEMP0411")).singleElement().asString().contains(": released");
        assertThat(store.find(key)).as("nothing there: a retry with the key runs").isEmpty();
    }
}
