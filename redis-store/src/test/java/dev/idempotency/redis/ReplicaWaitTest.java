package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.RecordState;

/**
 * {@code idempotency.redis.wait-replicas=1}: a master alone fails claims closed (and gives them
 * back: a takeover stays bound to its fingerprint, its lease over), a master with its replica
 * acknowledges them, and a completion its replica no longer acknowledges fails closed too. In this
 * order: a replica joins, then leaves.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplicaWaitTest {

    /**
     * The store's {@code wait-timeout}. Not shorter: on a loaded two-core CI machine a replica in
     * sync took more than 300 ms to acknowledge once (the claim failed closed, as it should).
     */
    private static final Duration WAIT = Duration.ofSeconds(1);

    static RedisServer master;
    static RedisServer replica;
    static RedisConnection connection;
    static IdempotencyStore store;

    @BeforeAll
    static void startMaster() throws Exception {
        master = RedisServer.start("wait-master", 7331);
        connection = new RedisConnection(RedisSettings.load(key -> Optional.ofNullable(master.settings(
                "idempotency.redis.wait-replicas", "1", "idempotency.redis.wait-timeout", WAIT.toString()).get(key))));
        store = new RedisIdempotencyStore(connection);
    }

    @AfterAll
    static void stopServers() throws Exception {
        if (connection != null) {
            connection.close();
        }
        if (replica != null) {
            replica.stop();
        }
        if (master != null) {
            master.stop();
        }
    }

    private static String key() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    @Test
    @Order(1)
    void aClaimNoReplicaAcknowledgesFailsClosedAndIsGivenBack() {
        String key = key();
        long started = System.nanoTime();

        assertThatThrownBy(() -> store.claim(key, "fp", Duration.ofMinutes(1)))
                .isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("IDEMP0822")
                .hasMessageContaining("reached 0 replica(s)").hasMessageContaining("given back");

        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("waited for the replica").isGreaterThanOrEqualTo(WAIT);
        assertThat(store.find(key)).as("no claim left behind: a retry may run").isEmpty();
    }

    /**
     * A takeover no replica acknowledges is given back without freeing the key: it was bound to its
     * fingerprint before, and stays so (in progress, its lease over), so another request is still
     * refused and a retry of the same request takes it over at once.
     */
    @Test
    @Order(2)
    void aTakeoverNoReplicaAcknowledgesFailsClosedAndLeavesTheKeyBoundToItsFingerprint() throws Exception {
        String key = key();
        Duration lease = Duration.ofMillis(300);
        RedisConnection unwaited = new RedisConnection(RedisSettings.load(k -> Optional.ofNullable(master.settings().get(k))));
        try {
            IdempotencyStore plain = new RedisIdempotencyStore(unwaited);
            assertThat(plain.claim(key, "fp", lease, Duration.ofMinutes(1))).isInstanceOf(ClaimResult.Acquired.class);
            Thread.sleep(lease.toMillis() + 200); // the first owner's lease runs out

            assertThatThrownBy(() -> store.claim(key, "fp", Duration.ofMinutes(1)))
                    .isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("IDEMP0822")
                    .hasMessageContaining("given back");
            assertThat(Long.parseLong(master.cli("PTTL", "idem:" + key))).as("kept for the takeover's retention")
                    .isGreaterThan(Duration.ofSeconds(50).toMillis());

            assertThat(plain.claim(key, "another-fp", Duration.ofMinutes(1))).as("the key is still bound to its fingerprint")
                    .isInstanceOfSatisfying(ClaimResult.Existing.class, e -> {
                        assertThat(e.record().state()).isEqualTo(RecordState.IN_PROGRESS);
                        assertThat(e.record().fingerprint()).isEqualTo("fp");
                    });
            assertThat(plain.claim(key, "fp", Duration.ofMinutes(1))).as("the same request takes it over at once")
                    .isInstanceOfSatisfying(ClaimResult.Acquired.class, a -> assertThat(a.takeover()).isTrue());
        } finally {
            unwaited.close();
        }
    }

    @Test
    @Order(3)
    void withItsReplicaClaimsMarksAndCompletionsAreAcknowledgedAndOnTheReplica() throws Exception {
        replica = RedisServer.start("wait-replica", 7332, "--replicaof", "127.0.0.1", "7331");
        // In sync is not enough: the master counts a replica for WAIT once it has acknowledged an offset.
        master.await("the replica in sync and acknowledging", Duration.ofSeconds(20),
                () -> master.cli("INFO", "replication").contains("connected_slaves:1")
                        && replica.cli("INFO", "replication").contains("master_link_status:up")
                        && "1".equals(master.cli("WAIT", "1", "1000")));
        String key = key();

        String owner = ((ClaimResult.Acquired) store.claim(key, "fp", Duration.ofMinutes(1))).owner();
        assertThat(replica.cli("EXISTS", "idem:" + key)).as("the claim is on the replica").isEqualTo("1");
        assertThat(store.markExecuted(key, owner, Duration.ofMinutes(1), Duration.ofMinutes(5))).isTrue();
        assertThat(store.complete(key, owner, StoredOutcomes.sample(), Duration.ofMinutes(5))).isTrue();
        assertThat(replica.cli("PTTL", "idem:" + key)).as("the completion (its ttl) is on the replica")
                .satisfies(ttl -> assertThat(Long.parseLong(ttl)).isGreaterThan(Duration.ofMinutes(4).toMillis()));
    }

    @Test
    @Order(4)
    void aCompletionItsReplicaNoLongerAcknowledgesFailsClosed() throws Exception {
        String key = key();
        String owner = ((ClaimResult.Acquired) store.claim(key, "fp", Duration.ofMinutes(1))).owner();
        replica.stop();

        assertThatThrownBy(() -> store.complete(key, owner, StoredOutcomes.sample(), Duration.ofMinutes(5)))
                .isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("IDEMP0822")
                .hasMessageContaining("complete");
        assertThat(store.find(key).orElseThrow().state()).as("the master keeps it: the work ran, nothing to undo")
                .isEqualTo(RecordState.COMPLETED);
    }
}
