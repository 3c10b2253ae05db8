package dev.idempotency.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.idempotency.exceptions.IdempotencyDefinitionException;

class LibrarySettingsTest {

    private final Map<String, String> config = new HashMap<>();

    private LibrarySettings load() {
        return LibrarySettings.load(key -> Optional.ofNullable(config.get(key)));
    }

    @Test
    void defaults() {
        LibrarySettings settings = load();

        assertThat(settings.keyHeader()).isEqualTo("Idempotency-Key");
        assertThat(settings.replayedHeader()).isEqualTo("Idempotent-Replayed");
        assertThat(settings.maxKeyLength()).isEqualTo(255);
        assertThat(settings.maxRequestBodySize()).isEqualTo(16 * 1024 * 1024);
        assertThat(settings.maxStoredBodySize()).isEqualTo(1024 * 1024);
        assertThat(settings.storedHeaders()).containsExactlyInAnyOrder("location", "content-type", "etag",
                "content-language", "content-location", "last-modified");
        assertThat(settings.retryAfterSeconds()).isEqualTo(1);
        assertThat(settings.interceptorPriority()).isEqualTo(1100);
        assertThat(settings.memoryMaxEntries()).isEqualTo(100_000);
        assertThat(settings.replayCacheMaxBytes()).isEqualTo(16 * 1024 * 1024);
        assertThat(settings.replayCacheTtl()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void theReplayCacheIsTurnedOffByZero() {
        config.put("idempotency.replay-cache.ttl", "PT0S");
        config.put("idempotency.replay-cache.max-bytes", "0");

        LibrarySettings settings = load();

        assertThat(settings.replayCacheTtl()).isZero();
        assertThat(settings.replayCacheMaxBytes()).isZero();
    }

    @Test
    void aBadReplayCacheTtlNamesTheKeyTheValueAndWhatIsAllowed() {
        config.put("idempotency.replay-cache.ttl", "30s");
        config.put("idempotency.replay-cache.max-bytes", "-1");

        assertThatThrownBy(this::load)
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageContaining("IDEMP0114: library setting idempotency.replay-cache.ttl='30s' is not allowed; "
                        + "allowed: an ISO-8601 duration of zero or more")
                .hasMessageContaining("IDEMP0106: library setting idempotency.replay-cache.max-bytes='-1'");
    }

    @Test
    void metricsTokensAndTheTieredStoreHaveDefaultsAndNamedErrors() {
        LibrarySettings defaults = load();
        assertThat(defaults.metricsEnabled()).isTrue();
        assertThat(defaults.tokenTtl()).isEqualTo(java.time.Duration.ofMinutes(30));
        assertThat(defaults.tokensPerPrincipal()).isEqualTo(100);
        assertThat(defaults.anonymousTokens()).isFalse();
        assertThat(defaults.openApiEnabled()).isTrue();
        assertThat(defaults.tieredFrontPause()).isEqualTo(java.time.Duration.ofSeconds(5));

        config.put("idempotency.metrics.enabled", "yes");
        config.put("idempotency.tokens.ttl", "PT0S");
        config.put("idempotency.tokens.max-per-principal", "0");

        assertThatThrownBy(this::load)
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageContaining("IDEMP0116: library setting idempotency.metrics.enabled='yes' is not a boolean")
                .hasMessageContaining("IDEMP0115: library setting idempotency.tokens.ttl='PT0S' is not allowed; "
                        + "allowed: a positive ISO-8601 duration")
                .hasMessageContaining("idempotency.tokens.max-per-principal='0'");
    }

    @Test
    void configuredValuesAreRead() {
        config.put("idempotency.key-header", "X-Request-Key");
        config.put("idempotency.max-key-length", "64");
        config.put("idempotency.stored-headers", "X-Trace, Cache-Control");

        LibrarySettings settings = load();

        assertThat(settings.keyHeader()).isEqualTo("X-Request-Key");
        assertThat(settings.maxKeyLength()).isEqualTo(64);
        assertThat(settings.storedHeaders()).contains("x-trace", "cache-control", "location");
    }

    @Test
    void credentialAndHopByHopHeadersCanNeverBeStored() {
        config.put("idempotency.stored-headers", "Set-Cookie, Proxy-Authenticate");

        assertThatThrownBy(this::load)
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageContaining("IDEMP0107: library setting idempotency.stored-headers lists 'Set-Cookie'")
                .hasMessageContaining("'Proxy-Authenticate'");
    }

    @Test
    void everyBadSettingIsReportedAtOnce() {
        config.put("idempotency.max-key-length", "0");
        config.put("idempotency.retry-after-seconds", "soon");
        config.put("idempotency.key-header", "Idempotency Key");

        assertThatThrownBy(this::load)
                .hasMessageContaining("IDEMP0106: library setting idempotency.max-key-length='0' is not allowed; "
                        + "allowed: an integer from 1 to 8192")
                .hasMessageContaining("idempotency.retry-after-seconds='soon'")
                .hasMessageContaining("IDEMP0108: library setting idempotency.key-header='Idempotency Key'");
    }

    @Test
    void forbiddenHeaders() {
        assertThat(LibrarySettings.isForbidden("Set-Cookie")).isTrue();
        assertThat(LibrarySettings.isForbidden("authorization")).isTrue();
        assertThat(LibrarySettings.isForbidden("Proxy-Authorization")).isTrue();
        assertThat(LibrarySettings.isForbidden("Transfer-Encoding")).isTrue();
        assertThat(LibrarySettings.isForbidden("Location")).isFalse();
    }
}
