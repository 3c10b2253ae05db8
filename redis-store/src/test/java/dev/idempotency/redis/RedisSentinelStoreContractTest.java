package dev.idempotency.redis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The store contract through Redis Sentinel: the store is given the three Sentinels and the
 * master's name ({@code sentinel-master}), asks them where the master is, and writes there as the
 * ACL user (real processes on loopback: a master, its replica, three Sentinels).
 */
class RedisSentinelStoreContractTest extends RedisContractTest {

    static RedisSentinels group;
    static RedisConnection connection;

    @BeforeAll
    static void startServers() throws Exception {
        group = RedisSentinels.start("sentinel-contract", 7410);
        RedisServer master = group.servers.get(0);
        connection = new RedisConnection(settings(master.settings("idempotency.redis.uri", group.uris(),
                "idempotency.redis.sentinel-master", RedisSentinels.MASTER)));
    }

    @AfterAll
    static void stopServers() {
        if (connection != null) {
            connection.close();
        }
        if (group != null) {
            group.close();
        }
    }

    @Override
    protected RedisConnection connection() {
        return connection;
    }

    @Override
    protected String admin(String... args) {
        return group.master().cli(args);
    }

    @Override
    protected void flushScripts() {
        group.servers.forEach(server -> server.cli("SCRIPT", "FLUSH"));
    }

    @Override
    protected boolean scriptKnownWhere(String redisKey, RedisScript script) {
        return group.master().cli("SCRIPT", "EXISTS", script.sha()).equals("1");
    }
}
