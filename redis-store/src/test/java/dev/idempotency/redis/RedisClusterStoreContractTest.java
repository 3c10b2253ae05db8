package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyStore;

/**
 * The store contract on a Redis Cluster of real servers: 3 masters and 3 replicas on loopback,
 * ACL user and requirepass on every node, the store given two masters as seeds.
 */
class RedisClusterStoreContractTest extends RedisContractTest {

    static RedisCluster cluster;
    static RedisConnection connection;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = RedisCluster.start("cluster", 7311);
        connection = new RedisConnection(settings(cluster.nodes.get(0).settings("idempotency.redis.uri", cluster.uris())));
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (connection != null) {
            connection.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void withWaitReplicasEveryWriteIsAcknowledgedByTheReplicaOfItsKeysMaster() {
        RedisConnection waiting = new RedisConnection(settings(cluster.nodes.get(0).settings("idempotency.redis.uri",
                cluster.uris(), "idempotency.redis.wait-replicas", "1", "idempotency.redis.wait-timeout", "PT2S")));
        try {
            IdempotencyStore store = new RedisIdempotencyStore(waiting);
            for (int i = 0; i < 30; i++) { // keys on every master
                String key = freshKey();
                String owner = ((ClaimResult.Acquired) store.claim(key, "fp", LONG)).owner();
                assertThat(store.markExecuted(key, owner, LONG, LONG)).isTrue();
                assertThat(store.complete(key, owner, sampleOutcome(), LONG)).isTrue();
                assertThat(store.find(key).orElseThrow().outcome()).isEqualTo(sampleOutcome());
            }
        } finally {
            waiting.close();
        }
    }

    @Override
    protected RedisConnection connection() {
        return connection;
    }

    @Override
    protected String admin(String... args) {
        return cluster.cli(args);
    }

    @Override
    protected void flushScripts() {
        for (RedisServer node : cluster.nodes) {
            node.cli("SCRIPT", "FLUSH");
        }
    }

    @Override
    protected boolean scriptKnownWhere(String redisKey, RedisScript script) {
        String slot = cluster.cli("CLUSTER", "KEYSLOT", redisKey);
        for (RedisServer master : cluster.masters()) {
            String owner = master.cli("CLUSTER", "COUNTKEYSINSLOT", slot);
            if (!owner.equals("0") || master.cli("EXISTS", redisKey).equals("1")) {
                return master.cli("SCRIPT", "EXISTS", script.sha()).equals("1");
            }
        }
        throw new IllegalStateException("no master holds " + redisKey);
    }
}
