package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;

/**
 * TLS to a real Redis that speaks nothing else: the store trusts only what it is told to (or the
 * JVM's trust store), checks that the certificate names the host it dialled, and a server it
 * cannot trust gets no command at all: every call fails closed with a coded store failure and
 * nothing is written.
 */
class RedisTlsTest {

    private static TestCertificates certificates;
    /** Its certificate names 127.0.0.1, signed by the test CA. */
    private static RedisServer server;
    /** Its certificate, signed by the same CA, names elsewhere.test only. */
    private static RedisServer elsewhere;
    private RedisConnection connection;

    @BeforeAll
    static void startServers() throws Exception {
        certificates = TestCertificates.create(Path.of("target/redis/tls"));
        server = RedisServer.startTls("tls", 7306, certificates, "server");
        elsewhere = RedisServer.startTls("tls-elsewhere", 7307, certificates, "elsewhere");
    }

    @AfterAll
    static void stopServers() throws Exception {
        for (RedisServer running : new RedisServer[] {server, elsewhere}) {
            if (running != null) {
                running.stop();
            }
        }
    }

    @AfterEach
    void close() {
        if (connection != null) {
            connection.close();
        }
    }

    private IdempotencyStore store(Map<String, String> settings) {
        Map<String, String> values = new java.util.HashMap<>(settings);
        values.put("idempotency.redis.timeout", "PT1S");
        connection = new RedisConnection(RedisSettings.load(key -> Optional.ofNullable(values.get(key))));
        return new RedisIdempotencyStore(connection);
    }

    @Test
    void withItsCaTrustedTheStoreClaimsOverTls() {
        IdempotencyStore store = store(server.settings("idempotency.redis.trust-certificates",
                certificates.authority().toString()));

        assertThat(server.uri()).startsWith("rediss://");
        assertThat(store.claim("tls-key", "fp", Duration.ofMinutes(1))).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(server.cli("EXISTS", "idem:tls-key")).isEqualTo("1");
    }

    @Test
    void aServerSignedByACaItWasNotToldToTrustGetsNoCommand() {
        IdempotencyStore store = store(server.settings("idempotency.redis.trust-certificates",
                certificates.otherAuthority().toString()));

        claimFailsClosedWithNothingWritten(store, server, "untrusted-key", server.uri(), "caused by",
                "unable to find valid certification path");
    }

    @Test
    void withoutTrustCertificatesTheJvmsTrustStoreDecidesAndDoesNotKnowTheTestCa() {
        IdempotencyStore store = store(server.settings());

        claimFailsClosedWithNothingWritten(store, server, "jvm-trust-key");
    }

    @Test
    void aTrustedCertificateForAnotherHostIsRefused() {
        IdempotencyStore store = store(elsewhere.settings("idempotency.redis.trust-certificates",
                certificates.authority().toString()));

        claimFailsClosedWithNothingWritten(store, elsewhere, "elsewhere-key", "caused by",
                "No subject alternative names matching IP address 127.0.0.1");
    }

    @Test
    void aTrustFileGoneAfterDeploymentFailsEachConnectCodedAndIsReadAgainOnceBack() throws Exception {
        Path trust = Files.copy(certificates.authority(), certificates.dir.resolve("renewed-ca.crt"),
                StandardCopyOption.REPLACE_EXISTING);
        IdempotencyStore store = store(server.settings("idempotency.redis.trust-certificates", trust.toString()));
        Files.delete(trust);

        claimFailsClosedWithNothingWritten(store, server, "trust-file-key", "caused by", "NoSuchFileException",
                trust.toString());

        Files.copy(certificates.authority(), trust);
        assertThat(store.claim("trust-file-key", "fp", Duration.ofMinutes(1))).as("the file is read at every connect")
                .isInstanceOf(ClaimResult.Acquired.class);
    }

    @Test
    void aServerThatNeverAnswersTheHandshakeIsLetGoWithinTheTimeout() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            IdempotencyStore store = store(Map.of("idempotency.redis.uri", "rediss://127.0.0.1:" + silent.getLocalPort(),
                    "idempotency.redis.trust-certificates", certificates.authority().toString()));

            // the connect step's timeout (IDEMP0821) or the handshake's (IDEMP0825), whichever ends first
            assertThatThrownBy(() -> store.claim("silent-key", "fp", Duration.ofMinutes(1)))
                    .isInstanceOf(IdempotencyStoreException.class).hasMessageMatching("IDEMP082[15]: .*");

            silent.setSoTimeout(5_000);
            try (Socket accepted = silent.accept()) {
                // the client's hello, then nothing until it gives up and closes: read() ends with -1.
                // Lettuce's connection handshake, bounded by the URI's timeout (the store's), closes it
                // about 1.2 s after the claim began; the TLS handshake's own timeout is the store's too
                accepted.setSoTimeout(5_000);
                byte[] buffer = new byte[4096];
                while (accepted.getInputStream().read(buffer) >= 0) {
                    // the hello's bytes
                }
            }
        }
    }

    /** A claim fails with the store's coded connect failure, naming each text, and the server holds no record. */
    private static void claimFailsClosedWithNothingWritten(IdempotencyStore store, RedisServer on, String key,
            String... named) {
        var failure = assertThatThrownBy(() -> store.claim(key, "fp", Duration.ofMinutes(1)))
                .isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("IDEMP0825");
        for (String text : named) {
            failure.hasMessageContaining(text);
        }
        assertThat(on.cli("EXISTS", "idem:" + key)).isEqualTo("0");
    }
}
