package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;

/**
 * {@code wait-replicas} on a Redis Cluster across a failover: the waited writes go over node
 * connections to each key's master, which follow no redirect. After a master and its replica
 * swap ({@code CLUSTER FAILOVER}, graceful: nothing is lost), the first waited write to the old
 * master meets {@code MOVED} and fails closed; it has the topology read again, so the key's slot is
 * served again within a fraction of a second, not at the client's next periodic refresh (every 30 s).
 */
class ClusterWaitedWriteFailoverTest {

    /**
     * Short, so that the client's periodic refresh (every 30 s from its first connect), which
     * alone used to end the stale routing, is unlikely to fall inside it: the fix follows in 0.1-0.2 s.
     */
    private static final Duration FOLLOWED_WITHIN = Duration.ofSeconds(3);

    @Test
    void aFailoverIsFollowedWithinSecondsNotAtTheNextPeriodicTopologyRefresh() throws Exception {
        try (RedisCluster cluster = RedisCluster.start("waited-failover", 7381)) {
            RedisConnection connection = new RedisConnection(RedisSettings.load(key -> Optional.ofNullable(java.util.Map.of(
                    "idempotency.redis.uri", cluster.uris(), "idempotency.redis.user", RedisServer.USER,
                    "idempotency.redis.password", RedisServer.PASSWORD, "idempotency.redis.timeout", "PT1S",
                    "idempotency.redis.wait-replicas", "1", "idempotency.redis.wait-timeout", "PT1S").get(key))));
            try {
                IdempotencyStore store = new RedisIdempotencyStore(connection);
                RedisServer master = cluster.masters().get(0);
                assertThat(store.claim(newKeyServedBy(master), "fp", Duration.ofMinutes(1)))
                        .as("the waited writes' connection to the master is open").isInstanceOf(ClaimResult.Acquired.class);

                RedisServer replica = cluster.nodes.stream().filter(node -> {
                    String replication = node.cli("INFO", "replication");
                    return replication.contains("role:slave") && replication.contains("master_port:" + master.port);
                }).findFirst().orElseThrow();
                // every master must know it as a replica by now, or it refuses its election ("it is a master
                // node": the gossip of a cluster just created can lag behind its replication)
                String replicaId = replica.cli("CLUSTER", "MYID");
                for (RedisServer node : cluster.nodes) {
                    node.await("the replica known as one", Duration.ofSeconds(30), () -> node.cli("CLUSTER", "NODES")
                            .lines().anyMatch(line -> line.startsWith(replicaId) && line.contains("slave")));
                }
                assertThat(replica.cli("CLUSTER", "FAILOVER")).isEqualTo("OK");
                replica.await("the replica promoted", Duration.ofSeconds(30),
                        () -> replica.cli("ROLE").startsWith("master") && master.cli("ROLE").startsWith("slave"));
                cluster.awaitSettled();
                long swapped = System.nanoTime();

                int failed = 0;
                ClaimResult claimed = null;
                while (claimed == null && System.nanoTime() - swapped < FOLLOWED_WITHIN.toNanos()) {
                    try {
                        claimed = store.claim(newKeyServedBy(replica), "fp", Duration.ofMinutes(1));
                    } catch (IdempotencyStoreException staleRoute) {
                        failed++;
                        Thread.sleep(100);
                    }
                }
                double seconds = (System.nanoTime() - swapped) / 1e9;
                System.out.printf("waited writes after a failover: served again after %.1f s, %d claims failed closed"
                        + " meanwhile%n", seconds, failed);

                assertThat(claimed).as("the slot served again within " + FOLLOWED_WITHIN + " (" + failed
                        + " claims failed closed)").isInstanceOf(ClaimResult.Acquired.class);
            } finally {
                connection.close();
            }
        }
    }

    /** @return a new key whose record (under the store's prefix) lives in a slot the node serves as master */
    private static String newKeyServedBy(RedisServer node) {
        return RedisCluster.keyServedBy(node, i -> UUID.randomUUID().toString(), RedisSettings.DEFAULT_PREFIX);
    }
}
