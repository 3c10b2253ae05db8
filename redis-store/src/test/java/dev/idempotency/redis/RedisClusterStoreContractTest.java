package dev.idempotency.redis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

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
