package dev.idempotency.redis;

import java.nio.file.Path;

import org.junit.jupiter.api.BeforeAll;

/**
 * The whole store contract over TLS: one real Redis 7 server that speaks TLS only (no plain port),
 * its certificate signed by a test CA for 127.0.0.1, the store trusting that CA through {@code
 * idempotency.redis.trust-certificates} and checking the host name; ACL user and requirepass as on
 * the plain server. The rest is {@link RedisStoreContractTest}'s, whose plain server (started
 * first, as a superclass's {@code @BeforeAll} is) this one replaces.
 */
class RedisTlsStoreContractTest extends RedisStoreContractTest {

    @BeforeAll
    static void replaceThePlainServerWithATlsOne() throws Exception {
        stopServer();
        TestCertificates certificates = TestCertificates.create(Path.of("target/redis/tls"));
        server = RedisServer.startTls("contract-tls", 7305, certificates, "server");
        connection = new RedisConnection(settings(server.settings("idempotency.redis.trust-certificates",
                certificates.authority().toString())));
    }
}
