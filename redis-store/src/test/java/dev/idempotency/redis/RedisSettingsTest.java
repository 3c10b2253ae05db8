package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.idempotency.exceptions.IdempotencyDefinitionException;

/** The Redis store's settings: defaults, overrides, and deployment errors that name key, value and what is allowed. */
class RedisSettingsTest {

    static RedisSettings load(Map<String, String> values) {
        return RedisSettings.load(key -> Optional.ofNullable(values.get(key)));
    }

    static void assertRefused(Map<String, String> values, String code, String keyAndValue) {
        assertThatThrownBy(() -> load(values)).isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageContaining(code).hasMessageContaining(keyAndValue).hasMessageContaining("allowed:");
    }

    @Test
    void defaultsToOneLocalNodeWithAShortTimeoutAndNoReplicaWait() {
        RedisSettings settings = load(Map.of());

        assertThat(settings.nodes()).extracting(Object::toString).containsExactly("redis://localhost:6379");
        assertThat(settings.cluster()).isFalse();
        assertThat(settings.tls()).isFalse();
        assertThat(settings.timeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(settings.keyPrefix()).isEqualTo("idem:");
        assertThat(settings.database()).isEmpty();
        assertThat(settings.waitReplicas()).isZero();
        assertThat(settings.waitTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(settings.allowEviction()).as("a Redis that may evict is refused by default").isFalse();
        assertThat(load(Map.of("idempotency.redis.allow-eviction", "TRUE")).allowEviction()).isTrue();
    }

    @Test
    void severalUrisAreTheSeedsOfACluster() {
        RedisSettings settings = load(Map.of("idempotency.redis.uri", "redis://r1:7000, redis://r2:7001"));

        assertThat(settings.cluster()).isTrue();
        assertThat(settings.nodes()).extracting(RedisSettings.Node::host).containsExactly("r1", "r2");
        assertThat(load(Map.of("idempotency.redis.uri", "redis://r1", "idempotency.redis.cluster", "TRUE")).cluster())
                .as("one seed, cluster=true").isTrue();
    }

    @Test
    void withASentinelMasterTheUrisAreTheSentinelsOnTheirOwnDefaultPort() {
        RedisSettings settings = load(Map.of("idempotency.redis.sentinel-master", "payments",
                "idempotency.redis.uri", "redis://s1, redis://s2:26380, redis://s3", "idempotency.redis.sentinel-password",
                "sentinel-secret", "idempotency.redis.user", "idem", "idempotency.redis.password", "pw"));

        assertThat(settings.cluster()).as("several URIs, but Sentinels").isFalse();
        assertThat(settings.sentinelMaster()).contains("payments");
        assertThat(settings.nodes()).extracting(Object::toString)
                .containsExactly("redis://s1:26379", "redis://s2:26380", "redis://s3:26379");
        assertThat(settings.where()).isEqualTo("the master 'payments' of the Sentinels [redis://s1:26379,"
                + " redis://s2:26380, redis://s3:26379]");
        assertThat(settings.toString()).doesNotContain("sentinel-secret").contains("sentinelPassword=***");
        assertThat(load(Map.of("idempotency.redis.sentinel-master", "payments")).nodes()).extracting(Object::toString)
                .as("the default: a Sentinel on this host").containsExactly("redis://localhost:26379");
    }

    @Test
    void aSentinelMasterWithAClusterTlsCredentialsInTheUrisOrABadNameFailsTheDeployment() {
        assertRefused(Map.of("idempotency.redis.sentinel-master", "pay ments"), "IDEMP0815",
                "idempotency.redis.sentinel-master='pay ments'");
        assertRefused(Map.of("idempotency.redis.sentinel-master", "payments", "idempotency.redis.cluster", "true"),
                "IDEMP0816", "idempotency.redis.cluster='true'");
        assertRefused(Map.of("idempotency.redis.sentinel-master", "payments", "idempotency.redis.uri",
                "rediss://s1:26379"), "IDEMP0816", "idempotency.redis.uri='rediss://s1:26379'");
        assertRefused(Map.of("idempotency.redis.sentinel-master", "payments", "idempotency.redis.tls", "true"),
                "IDEMP0816", "idempotency.redis.tls='true'");
        assertRefused(Map.of("idempotency.redis.sentinel-master", "payments", "idempotency.redis.uri",
                "redis://idem:pw@s1"), "IDEMP0816", "give the master's in idempotency.redis.user");
        assertRefused(Map.of("idempotency.redis.sentinel-password", "sentinel-secret"), "IDEMP0816",
                "idempotency.redis.sentinel-password='***'");
    }

    @Test
    void takesCredentialsFromTheUriAndLetsTheSettingsReplaceThem() {
        RedisSettings fromUri = load(Map.of("idempotency.redis.uri", "rediss://app:s%40cret@redis.internal:6380"));
        assertThat(fromUri.nodes().get(0).user()).contains("app");
        assertThat(fromUri.nodes().get(0).password()).contains("s@cret");
        assertThat(fromUri.tls()).as("rediss").isTrue();
        assertThat(fromUri.toString()).doesNotContain("s@cret");

        RedisSettings fromKeys = load(Map.of("idempotency.redis.user", "idem", "idempotency.redis.password", "pw",
                "idempotency.redis.tls", "true", "idempotency.redis.database", "3", "idempotency.redis.wait-replicas", "1",
                "idempotency.redis.wait-timeout", "PT0.25S", "idempotency.redis.timeout", "PT0.5S",
                "idempotency.redis.key-prefix", "payments:idem:"));
        assertThat(fromKeys.user()).contains("idem");
        assertThat(fromKeys.password()).contains("pw");
        assertThat(fromKeys.toString()).doesNotContain("=pw");
        assertThat(fromKeys.tls()).isTrue();
        assertThat(fromKeys.database()).hasValue(3);
        assertThat(fromKeys.waitReplicas()).isEqualTo(1);
        assertThat(fromKeys.waitTimeout()).isEqualTo(Duration.ofMillis(250));
        assertThat(fromKeys.timeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(fromKeys.keyPrefix()).isEqualTo("payments:idem:");
    }

    @Test
    void aUriThatIsNoRedisUriFailsTheDeployment() {
        assertRefused(Map.of("idempotency.redis.uri", "http://r1:6379"), "IDEMP0801", "idempotency.redis.uri='http://r1:6379'");
        assertRefused(Map.of("idempotency.redis.uri", "redis://:6379"), "IDEMP0801", "names no host");
        assertRefused(Map.of("idempotency.redis.uri", "redis://r1:6379,"), "IDEMP0801", "idempotency.redis.uri=");
        assertRefused(Map.of("idempotency.redis.uri", "redis://r 1"), "IDEMP0801", "'redis://r 1'");
        assertRefused(Map.of("idempotency.redis.uri", "redis://r1/2"), "IDEMP0812", "idempotency.redis.uri='redis://r1/2'");
        assertRefused(Map.of("idempotency.redis.uri", "redis://r1?timeout=5s"), "IDEMP0812", "timeout=5s");
        // java.net.URI takes any number for a port; Lettuce refused it only when connecting, uncoded
        assertRefused(Map.of("idempotency.redis.uri", "redis://r1:70000"), "IDEMP0801", "port 70000");
        assertRefused(Map.of("idempotency.redis.uri", "redis://r1:0"), "IDEMP0801", "port 0");
    }

    @Test
    void severalUrisWithClusterSetToFalseFailTheDeployment() {
        assertRefused(Map.of("idempotency.redis.uri", "redis://r1,redis://r2", "idempotency.redis.cluster", "false"),
                "IDEMP0802", "idempotency.redis.uri='redis://r1,redis://r2'");
    }

    @Test
    void aSwitchThatIsNeitherTrueNorFalseFailsTheDeployment() {
        assertRefused(Map.of("idempotency.redis.cluster", "yes"), "IDEMP0803", "idempotency.redis.cluster='yes'");
        assertRefused(Map.of("idempotency.redis.tls", "on"), "IDEMP0803", "idempotency.redis.tls='on'");
        assertRefused(Map.of("idempotency.redis.allow-eviction", "maybe"), "IDEMP0803",
                "idempotency.redis.allow-eviction='maybe'");
    }

    @Test
    void aTimeoutThatIsNoPositiveIsoDurationFailsTheDeployment() {
        for (String bad : new String[] {"2s", "PT0S", "-PT1S", "PT10M", "PT0.0001S"}) {
            assertRefused(Map.of("idempotency.redis.timeout", bad), "IDEMP0804", "idempotency.redis.timeout='" + bad + "'");
        }
        assertRefused(Map.of("idempotency.redis.wait-timeout", "PT0S"), "IDEMP0809", "idempotency.redis.wait-timeout='PT0S'");
        assertRefused(Map.of("idempotency.redis.wait-timeout", "1000"), "IDEMP0809", "'1000'");
    }

    @Test
    void aKeyPrefixWithAHashTagSpacesOrTooLongFailsTheDeployment() {
        for (String bad : new String[] {"{idem}:", "my idem:", "x".repeat(65), "idé:"}) {
            assertRefused(Map.of("idempotency.redis.key-prefix", bad), "IDEMP0805", "idempotency.redis.key-prefix='" + bad + "'");
        }
        assertThat(load(Map.of("idempotency.redis.key-prefix", "")).keyPrefix()).as("no prefix at all").isEmpty();
    }

    @Test
    void aDatabaseMustBeANumberAndOnlyOnASingleNode() {
        assertRefused(Map.of("idempotency.redis.database", "-1"), "IDEMP0806", "idempotency.redis.database='-1'");
        assertRefused(Map.of("idempotency.redis.database", "two"), "IDEMP0806", "'two'");
        assertRefused(Map.of("idempotency.redis.uri", "redis://r1,redis://r2", "idempotency.redis.database", "1"),
                "IDEMP0807", "idempotency.redis.database='1'");
    }

    @Test
    void waitReplicasMustBeAWholeNumberInRange() {
        for (String bad : new String[] {"-1", "101", "one", "1.5"}) {
            assertRefused(Map.of("idempotency.redis.wait-replicas", bad), "IDEMP0808",
                    "idempotency.redis.wait-replicas='" + bad + "'");
        }
    }

    /**
     * The docs promise a URI's password is never logged, but the deployment's messages quoted the
     * whole value: a database number in the URI, a mixed TLS list, credentials beside Sentinels.
     */
    @Test
    void aPasswordInAUriIsNeverQuotedInADeploymentError() {
        for (Map<String, String> values : java.util.List.of(
                Map.of("idempotency.redis.uri", "redis://app:s3cret@r1:6379/0"),
                Map.of("idempotency.redis.uri", "rediss://app:s3cret@r1,redis://app:s3cret@r2", "idempotency.redis.cluster",
                        "true"),
                Map.of("idempotency.redis.uri", "redis://:s3cret@s1", "idempotency.redis.sentinel-master", "m"),
                Map.of("idempotency.redis.uri", "redis://app:s3cr@t@r1/x"),
                Map.of("idempotency.redis.uri", "redis://app:s3cret@r1:99999"),
                Map.of("idempotency.redis.uri", "redis://app:s3cr,et@r1/0"),
                Map.of("idempotency.redis.uri", "redis://app:s3cr,et@r1,redis://app:s3cr,et@r2:99999",
                        "idempotency.redis.cluster", "true"))) {
            assertThatThrownBy(() -> load(values)).as(values.toString()).isInstanceOf(IdempotencyDefinitionException.class)
                    .hasMessageContaining("IDEMP08").hasMessageNotContaining("s3cr").hasMessageContaining("***");
        }
    }

    /** An ACL user whose password the URI holds, as the docs allow ("the URI's" by default). */
    @Test
    void aUserWhosePasswordIsInTheUriIsAccepted() {
        RedisSettings settings = load(Map.of("idempotency.redis.uri", "redis://:s3cret@r1:6379", "idempotency.redis.user",
                "idem"));

        assertThat(settings.user()).contains("idem");
        assertThat(settings.password()).isEmpty();
        assertThat(settings.nodes().get(0).password()).contains("s3cret");
    }

    @Test
    void aUserWithoutAPasswordFailsTheDeployment() {
        assertRefused(Map.of("idempotency.redis.user", "idem"), "IDEMP0810", "idempotency.redis.user='idem'");
    }

    @Test
    void tlsSwitchedOffForRedissUrisOrMixedSchemesFailTheDeployment() {
        assertRefused(Map.of("idempotency.redis.uri", "rediss://r1", "idempotency.redis.tls", "false"), "IDEMP0811",
                "idempotency.redis.tls='false'");
        assertRefused(Map.of("idempotency.redis.uri", "rediss://r1,redis://r2"), "IDEMP0811",
                "idempotency.redis.uri='rediss://r1,redis://r2'");
    }

    @Test
    void certificatesToTrustAreAPemFileCheckedAtDeploymentAndOnlyWithTls(@TempDir Path dir) throws Exception {
        TestCertificates certificates = TestCertificates.create(dir);
        String ca = certificates.authority().toString();

        RedisSettings settings = load(Map.of("idempotency.redis.uri", "rediss://r1", "idempotency.redis.trust-certificates",
                ca));
        assertThat(settings.trustCertificates()).contains(certificates.authority());
        assertThat(load(Map.of("idempotency.redis.uri", "rediss://r1")).trustCertificates())
                .as("without it, the JVM's trust store").isEmpty();

        assertRefused(Map.of("idempotency.redis.uri", "redis://r1", "idempotency.redis.trust-certificates", ca),
                "IDEMP0813", "idempotency.redis.trust-certificates='" + ca + "'");
        Path missing = dir.resolve("missing.pem");
        assertRefused(Map.of("idempotency.redis.tls", "true", "idempotency.redis.trust-certificates", missing.toString()),
                "IDEMP0814", "idempotency.redis.trust-certificates='" + missing + "'");
        Path key = dir.resolve("ca.key");
        assertRefused(Map.of("idempotency.redis.tls", "true", "idempotency.redis.trust-certificates", key.toString()),
                "IDEMP0814", "idempotency.redis.trust-certificates='" + key + "'");
        Path empty = Files.writeString(dir.resolve("empty.pem"), "");
        assertRefused(Map.of("idempotency.redis.tls", "true", "idempotency.redis.trust-certificates", empty.toString()),
                "IDEMP0814", "idempotency.redis.trust-certificates='" + empty + "'");
    }

    @Test
    void aFileTheClientCouldNotReadIsRefusedAtDeploymentNotAtTheFirstConnect(@TempDir Path dir) throws Exception {
        TestCertificates certificates = TestCertificates.create(dir);
        // the same certificate in DER: the JDK reads it, the client (Netty, PEM only) does not
        Path der = dir.resolve("ca.der");
        try (var in = Files.newInputStream(certificates.authority())) {
            Files.write(der, CertificateFactory.getInstance("X.509").generateCertificate(in).getEncoded());
        }
        assertRefused(Map.of("idempotency.redis.tls", "true", "idempotency.redis.trust-certificates", der.toString()),
                "IDEMP0814", "idempotency.redis.trust-certificates='" + der + "'");
        assertRefused(Map.of("idempotency.redis.tls", "true", "idempotency.redis.trust-certificates", dir.toString()),
                "IDEMP0814", "idempotency.redis.trust-certificates='" + dir + "'");
        assertRefused(Map.of("idempotency.redis.tls", "true", "idempotency.redis.trust-certificates", "ca\0.pem"),
                "IDEMP0814", "idempotency.redis.trust-certificates='ca\0.pem'");
    }

    @Test
    void aRelativeTrustFileIsResolvedAgainstTheWorkingDirectoryOnce(@TempDir Path dir) throws Exception {
        TestCertificates certificates = TestCertificates.create(dir);
        Path relative = Path.of("").toAbsolutePath().relativize(certificates.authority());

        RedisSettings settings = load(Map.of("idempotency.redis.tls", "true", "idempotency.redis.trust-certificates",
                relative.toString()));

        assertThat(relative.isAbsolute()).isFalse();
        assertThat(settings.trustCertificates()).hasValueSatisfying(path -> {
            assertThat(path.isAbsolute()).isTrue();
            assertThat(path).isEqualTo(Path.of("").toAbsolutePath().resolve(relative));
        });
    }

    @Test
    void everyCodedMessageLivesInTheCatalogue() throws Exception {
        try (var files = java.nio.file.Files.walk(java.nio.file.Path.of("src/main/java"))) {
            assertThat(files.filter(file -> file.toString().endsWith(".java"))
                    .filter(file -> !file.endsWith("RedisMessages.java"))
                    .filter(file -> {
                        try {
                            return java.nio.file.Files.readString(file).contains("\"IDEMP");
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    }).toList()).isEmpty();
        }
    }
}
