package dev.idempotency.redis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

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
}
