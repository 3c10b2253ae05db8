package dev.idempotency.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
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
    void durationsLongerThanAHundredYearsFailTheDeploymentInsteadOfEveryCall() {
        // In nanoseconds (the monotonic clock's unit) a long runs out after 292 years: such a value
        // deployed and then failed every request with an ArithmeticException.
        config.put("idempotency.telemetry.slow-store-threshold", "P200000D");
        config.put("idempotency.replay-cache.ttl", "P110000D");
        config.put("idempotency.tiered.front-pause", "P36501D");
        config.put("idempotency.tokens.ttl", "P110000D");

        assertThatThrownBy(this::load)
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageContaining("IDEMP0114: library setting idempotency.telemetry.slow-store-threshold='P200000D' is"
                        + " not allowed; allowed: an ISO-8601 duration of zero or more, at most P36500D")
                .hasMessageContaining("IDEMP0114: library setting idempotency.replay-cache.ttl='P110000D'")
                .hasMessageContaining("IDEMP0114: library setting idempotency.tiered.front-pause='P36501D'")
                .hasMessageContaining("IDEMP0115: library setting idempotency.tokens.ttl='P110000D' is not allowed;"
                        + " allowed: a positive ISO-8601 duration, at most P36500D");

        config.clear();
        config.put("idempotency.telemetry.slow-store-threshold", "P36500D");
        assertThat(load().slowStoreThreshold()).isEqualTo(java.time.Duration.ofDays(36_500));
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
    void theReplayMarkerCannotBeAHeaderThatReplaysCarryOrNeverCarry() {
        // "Content-Type: true" added to every replay beside the stored type, "Content-Length: true"
        // breaking the framing, a credential header sent back: each deployed before.
        for (String header : List.of("Content-Type", "location", "Content-Length", "Set-Cookie", "Proxy-Authorization",
                "Content-Encoding", "Date")) {
            config.put("idempotency.replayed-header", header);

            assertThatThrownBy(this::load).as(header)
                    .isInstanceOf(IdempotencyDefinitionException.class)
                    .hasMessageContaining("IDEMP0158: library setting idempotency.replayed-header='" + header + "'");
        }
        config.put("idempotency.stored-headers", "X-Trace");
        config.put("idempotency.replayed-header", "x-trace");
        assertThatThrownBy(this::load).isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageContaining("IDEMP0158").hasMessageContaining("idempotency.stored-headers");

        config.put("idempotency.replayed-header", "X-Replayed");
        assertThat(load().replayedHeader()).isEqualTo("X-Replayed");
    }

    /**
     * The tenant read from the key's own header: every tenant sending key "order-1" with the same
     * body would share one record and be replayed another tenant's answer. Deployed before.
     */
    @Test
    void theTenantHeaderCannotBeTheKeyHeader() {
        config.put("idempotency.tenant.source", "HEADER");
        config.put("idempotency.tenant.header", "idempotency-key");

        assertThatThrownBy(this::load).isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageContaining("IDEMP0160: library setting idempotency.tenant.header='idempotency-key' names the header"
                        + " of the key (idempotency.key-header='Idempotency-Key')");

        config.put("idempotency.key-header", "X-Request-Key");
        config.put("idempotency.tenant.header", "x-request-key");
        assertThatThrownBy(this::load).isInstanceOf(IdempotencyDefinitionException.class).hasMessageContaining("IDEMP0160");

        config.put("idempotency.tenant.header", "Idempotency-Key"); // no longer the key's header
        assertThat(load().tenantHeader()).isEqualTo("Idempotency-Key");
        config.put("idempotency.tenant.source", "JWT_CLAIM"); // the header is not read
        config.put("idempotency.tenant.header", "X-Request-Key");
        assertThat(load().tenantSource()).isEqualTo(TenantSource.JWT_CLAIM);
    }

    @Test
    void originsAllowedToAskForTokensAreWebOrigins() {
        config.put("idempotency.tokens.allowed-origins", " https://App.example:443/ , http://localhost:8080");
        assertThat(load().tokenAllowedOrigins()).containsExactlyInAnyOrder("https://app.example", "http://localhost:8080");

        config.put("idempotency.tokens.allowed-origins", "https://app.example/login, *");
        assertThatThrownBy(this::load).isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageContaining("IDEMP0159: library setting idempotency.tokens.allowed-origins lists"
                        + " 'https://app.example/login'")
                .hasMessageContaining("lists '*'");
    }

    @Test
    void theSupportRolesCannotBeTheServletWildcards() {
        // isUserInRole("**") is true for every authenticated caller (Servlet 6, 13.3): every API
        // client could have read every stored answer, and released claims.
        for (String key : List.of("idempotency.support.role", "idempotency.support.release-role")) {
            for (String wildcard : List.of("*", "**")) {
                config.clear();
                config.put(key, wildcard);

                assertThatThrownBy(this::load).as(key + "=" + wildcard)
                        .isInstanceOf(IdempotencyDefinitionException.class)
                        .hasMessageContaining("IDEMP0130: library setting " + key + "='" + wildcard + "'");
            }
        }
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
    void tenantsAndTheChallengeHaveDefaultsAndAreRead() {
        LibrarySettings defaults = load();
        assertThat(defaults.tenantSource()).isEqualTo(TenantSource.NONE);
        assertThat(defaults.tenantHeader()).isEqualTo("X-Tenant-Id");
        assertThat(defaults.tenantJwtClaim()).isEqualTo("tenant_id");
        assertThat(defaults.authenticationChallenge()).as("none unless configured").isEmpty();

        config.put("idempotency.tenant.source", " jwt_claim ");
        config.put("idempotency.tenant.header", "X-Org");
        config.put("idempotency.tenant.jwt-claim", "https://acme.example/tenant");
        config.put("idempotency.authentication-challenge", "Bearer realm=\"payments\", error=\"invalid_token\"");

        LibrarySettings settings = load();
        assertThat(settings.tenantSource()).isEqualTo(TenantSource.JWT_CLAIM);
        assertThat(settings.tenantHeader()).isEqualTo("X-Org");
        assertThat(settings.tenantJwtClaim()).isEqualTo("https://acme.example/tenant");
        assertThat(settings.authenticationChallenge()).isEqualTo("Bearer realm=\"payments\", error=\"invalid_token\"");
        for (TenantSource source : TenantSource.values()) {
            config.put("idempotency.tenant.source", source.name().toLowerCase(java.util.Locale.ROOT));
            assertThat(load().tenantSource()).isEqualTo(source);
        }
    }

    @Test
    void badTenantSettingsAndChallengesAreReportedAtOnceWithTheirCodes() {
        config.put("idempotency.tenant.source", "COOKIE");
        config.put("idempotency.tenant.header", "X Tenant");
        config.put("idempotency.tenant.jwt-claim", "tenant id");
        config.put("idempotency.authentication-challenge", "Basic realm=\"caf\u00e9\"");

        assertThatThrownBy(this::load)
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageContaining("IDEMP0122: library setting idempotency.tenant.source='COOKIE' is not a tenant"
                        + " source; allowed: [NONE, HEADER, JWT_CLAIM, HOST, RESOLVER] (case-insensitive)")
                .hasMessageContaining("IDEMP0108: library setting idempotency.tenant.header='X Tenant'")
                .hasMessageContaining("IDEMP0123: library setting idempotency.tenant.jwt-claim='tenant id' is not a"
                        + " JWT claim name; allowed: 1 to 255 printable US-ASCII characters without spaces")
                .hasMessageContaining("IDEMP0124: library setting idempotency.authentication-challenge=");

        config.clear();
        config.put("idempotency.tenant.jwt-claim", " ");
        assertThatThrownBy(this::load).hasMessageContaining("IDEMP0123");
        config.clear();
        config.put("idempotency.authentication-challenge", "Basic\r\nSet-Cookie: x=y");
        assertThatThrownBy(this::load).as("no header can be smuggled in").hasMessageContaining("IDEMP0124");
    }

    @Test
    void forbiddenHeaders() {
        assertThat(LibrarySettings.isForbidden("Set-Cookie")).isTrue();
        assertThat(LibrarySettings.isForbidden("authorization")).isTrue();
        assertThat(LibrarySettings.isForbidden("Proxy-Authorization")).isTrue();
        assertThat(LibrarySettings.isForbidden("Transfer-Encoding")).isTrue();
        assertThat(LibrarySettings.isForbidden("Location")).isFalse();
    }

    @Test
    void theWaitingDuplicatesOfANodeAreBounded() {
        assertThat(load().maxWaiting()).as("the default").isEqualTo(16);
        config.put("idempotency.in-progress.max-waiting", "0");

        assertThatThrownBy(this::load)
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageContaining("IDEMP0106: library setting idempotency.in-progress.max-waiting='0' is not allowed;"
                        + " allowed: an integer from 1 to 100000");
    }
}
