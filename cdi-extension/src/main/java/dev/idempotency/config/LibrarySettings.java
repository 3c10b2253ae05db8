package dev.idempotency.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import dev.idempotency.exceptions.IdempotencyDefinitionException;
import dev.idempotency.internal.Messages;
import dev.idempotency.spi.support.ConfigLookup;

/**
 * The library-wide settings under {@code idempotency.}, read and validated once at deployment.
 * docs/configuration.md lists each key with its default.
 *
 * @param keyHeader the request header carrying the key
 * @param replayedHeader the response header marking a replay
 * @param maxKeyLength the longest key accepted
 * @param maxRequestBodySize the largest request body fingerprinted; larger ones get 413
 * @param maxStoredBodySize the largest response body stored for replay
 * @param storedHeaders response headers replayed, lower case (the defaults plus configured ones)
 * @param retryAfterSeconds the {@code Retry-After} of 409 and 503 answers
 * @param interceptorPriority the {@code @Priority} of the interceptor
 * @param memoryMaxEntries the capacity of the in-memory store, in records
 * @param memoryMaxBytes the capacity of the in-memory store, in bytes of records (bodies included)
 * @param replayCacheMaxBytes the heap the replay cache of a remote store may take; 0: no cache
 * @param replayCacheTtl how long the replay cache keeps a completed record; zero: no cache
 * @param metricsEnabled whether outcomes are counted through MicroProfile Metrics when the server has it
 * @param tokenTtl how long a server-issued token stays valid
 * @param tokensPerPrincipal how many tokens one principal may be issued within a token ttl, on one node
 * @param tieredFrontPause how long the tiered store leaves its fast layer alone after it failed
 * @param openApiEnabled whether {@code @Idempotent} operations are documented in the OpenAPI document
 * @param anonymousTokens whether unauthenticated callers may be issued tokens (they then share them)
 * @param tokenAllowedOrigins the origins of other sites whose pages may ask for tokens, each as
 *     {@code scheme://host[:port]} in {@link WebOrigin}'s one form
 * @param tenantSource where the tenant of a tenant-scoped request comes from
 * @param tenantHeader the request header carrying the tenant, where the source is {@link TenantSource#HEADER}
 * @param tenantJwtClaim the JWT claim naming the tenant, where the source is {@link TenantSource#JWT_CLAIM}
 * @param authenticationChallenge the {@code WWW-Authenticate} value of the library's {@code 401}
 *     answers, or {@code ""} for none
 * @param maxWaiting how many duplicates may wait for a request in flight at once on this node
 *     ({@code inProgress = WAIT}); the next ones are answered as in progress at once
 * @param supportRole the role a caller needs to use the support look-up
 * @param supportReleaseRole the role a caller needs to release an abandoned claim through the support look-up
 * @param telemetryEnabled whether outcomes are reported through OpenTelemetry when the server has it
 * @param slowStoreThreshold a store operation at least this slow is an event on the current span
 *     (OpenTelemetry); zero: every operation
 * @param maxDecodedBodyExpansion how many times its size a compressed request body may decode to,
 *     beyond 4 MiB (a zip bomb's few kilobytes would decode to the whole body limit, all of it read
 *     before anything is claimed); zero: the body limit alone
 */
public record LibrarySettings(String keyHeader, String replayedHeader, int maxKeyLength, int maxRequestBodySize,
        int maxStoredBodySize, Set<String> storedHeaders, int retryAfterSeconds, int interceptorPriority,
        int memoryMaxEntries, long memoryMaxBytes, long replayCacheMaxBytes, Duration replayCacheTtl, boolean metricsEnabled,
        Duration tokenTtl, int tokensPerPrincipal, Duration tieredFrontPause, boolean openApiEnabled,
        boolean anonymousTokens, Set<String> tokenAllowedOrigins, TenantSource tenantSource, String tenantHeader, String tenantJwtClaim,
        String authenticationChallenge, int maxWaiting, String supportRole, String supportReleaseRole,
        boolean telemetryEnabled, Duration slowStoreThreshold, int maxDecodedBodyExpansion) {

    public static final String KEY_HEADER = "idempotency.key-header";
    public static final String REPLAYED_HEADER = "idempotency.replayed-header";
    public static final String MAX_KEY_LENGTH = "idempotency.max-key-length";
    public static final String MAX_REQUEST_BODY_SIZE = "idempotency.max-request-body-size";
    public static final String MAX_STORED_BODY_SIZE = "idempotency.max-stored-body-size";
    public static final String STORED_HEADERS = "idempotency.stored-headers";
    public static final String RETRY_AFTER = "idempotency.retry-after-seconds";
    public static final String INTERCEPTOR_PRIORITY = "idempotency.interceptor.priority";
    public static final String MEMORY_MAX_ENTRIES = "idempotency.memory.max-entries";
    public static final String MEMORY_MAX_BYTES = "idempotency.memory.max-bytes";
    public static final String REPLAY_CACHE_MAX_BYTES = "idempotency.replay-cache.max-bytes";
    public static final String REPLAY_CACHE_TTL = "idempotency.replay-cache.ttl";
    public static final String METRICS_ENABLED = "idempotency.metrics.enabled";
    public static final String TOKEN_TTL = "idempotency.tokens.ttl";
    public static final String TOKENS_PER_PRINCIPAL = "idempotency.tokens.max-per-principal";
    public static final String TIERED_FRONT_PAUSE = "idempotency.tiered.front-pause";
    public static final String OPENAPI_ENABLED = "idempotency.openapi.enabled";
    public static final String ANONYMOUS_TOKENS = "idempotency.tokens.anonymous";
    public static final String TOKEN_ALLOWED_ORIGINS = "idempotency.tokens.allowed-origins";
    public static final String TENANT_SOURCE = "idempotency.tenant.source";
    public static final String TENANT_HEADER = "idempotency.tenant.header";
    public static final String TENANT_JWT_CLAIM = "idempotency.tenant.jwt-claim";
    public static final String AUTHENTICATION_CHALLENGE = "idempotency.authentication-challenge";
    public static final String MAX_WAITING = "idempotency.in-progress.max-waiting";
    public static final String SUPPORT_ROLE = "idempotency.support.role";
    public static final String SUPPORT_RELEASE_ROLE = "idempotency.support.release-role";
    public static final String TELEMETRY_ENABLED = "idempotency.telemetry.enabled";
    public static final String SLOW_STORE_THRESHOLD = "idempotency.telemetry.slow-store-threshold";
    public static final String MAX_DECODED_BODY_EXPANSION = "idempotency.max-decoded-body-expansion";

    /** Below the smallest request thread pool of the servers tested (WildFly: 16 per core). */
    static final int DEFAULT_MAX_WAITING = 16;

    /** The longest JWT claim name and {@code WWW-Authenticate} value accepted. */
    static final int MAX_CLAIM_LENGTH = 255;
    static final int MAX_CHALLENGE_LENGTH = 1024;

    /** Inside {@code @Transactional} (200), outside Fault Tolerance (4010) and Bean Validation (4800). */
    public static final int DEFAULT_INTERCEPTOR_PRIORITY = 1100;

    /** Replayed by default, besides those configured. */
    public static final Set<String> DEFAULT_STORED_HEADERS = Set.of("location", "content-type", "etag",
            "content-language", "content-location", "last-modified");

    /** Never stored nor replayed, whatever is configured: credentials and hop-by-hop headers. */
    private static final Set<String> FORBIDDEN_HEADERS = Set.of("set-cookie", "set-cookie2", "authorization",
            "www-authenticate", "cookie", "connection", "keep-alive", "te", "trailer", "transfer-encoding",
            "upgrade", "content-length");

    /**
     * @param header a header name
     * @return whether it may never be stored (credential, cookie, proxy or hop-by-hop header)
     */
    public static boolean isForbidden(String header) {
        String name = header.toLowerCase(Locale.ROOT);
        return FORBIDDEN_HEADERS.contains(name) || name.startsWith("proxy-");
    }

    /**
     * Headers that say how the body's bytes are to be read or checked: a replay marker named so
     * would break the replayed body for every client.
     */
    private static final Set<String> FRAMING_HEADERS = Set.of("content-encoding", "content-range", "content-digest",
            "repr-digest", "digest", "date");

    /**
     * @param name a header name as configured
     * @return whether it is an HTTP header name (an RFC 9110 token)
     */
    public static boolean isHeaderName(String name) {
        return Reader.isToken(name);
    }

    /**
     * @param config where the settings are read
     * @return the validated settings
     * @throws IdempotencyDefinitionException listing every bad setting
     */
    public static LibrarySettings load(ConfigLookup config) {
        Reader reader = new Reader(config);
        String keyHeader = reader.headerName(KEY_HEADER, "Idempotency-Key");
        Set<String> storedHeaders = reader.storedHeaders();
        LibrarySettings settings = new LibrarySettings(
                keyHeader,
                reader.replayedHeader(storedHeaders),
                reader.integer(MAX_KEY_LENGTH, 255, 1, 8192),
                reader.integer(MAX_REQUEST_BODY_SIZE, 16 * 1024 * 1024, 0, Integer.MAX_VALUE - 16),
                reader.integer(MAX_STORED_BODY_SIZE, 1024 * 1024, 0, Integer.MAX_VALUE - 16),
                storedHeaders,
                reader.integer(RETRY_AFTER, 1, 0, 86_400),
                reader.integer(INTERCEPTOR_PRIORITY, DEFAULT_INTERCEPTOR_PRIORITY, Integer.MIN_VALUE, Integer.MAX_VALUE),
                reader.integer(MEMORY_MAX_ENTRIES, 100_000, 1, Integer.MAX_VALUE),
                reader.longInteger(MEMORY_MAX_BYTES, 256L * 1024 * 1024, 1, Long.MAX_VALUE),
                reader.integer(REPLAY_CACHE_MAX_BYTES, 16 * 1024 * 1024, 0, Integer.MAX_VALUE),
                reader.duration(REPLAY_CACHE_TTL, Duration.ofSeconds(30)),
                reader.bool(METRICS_ENABLED, true),
                reader.positiveDuration(TOKEN_TTL, Duration.ofMinutes(30)),
                reader.integer(TOKENS_PER_PRINCIPAL, 100, 1, Integer.MAX_VALUE),
                reader.duration(TIERED_FRONT_PAUSE, Duration.ofSeconds(5)),
                reader.bool(OPENAPI_ENABLED, true),
                reader.bool(ANONYMOUS_TOKENS, false),
                reader.origins(TOKEN_ALLOWED_ORIGINS),
                reader.tenantSource(),
                reader.headerName(TENANT_HEADER, "X-Tenant-Id"),
                reader.claimName(TENANT_JWT_CLAIM, "tenant_id"),
                reader.challenge(AUTHENTICATION_CHALLENGE),
                reader.integer(MAX_WAITING, DEFAULT_MAX_WAITING, 1, 100_000),
                reader.roleName(SUPPORT_ROLE, "idempotency-support"),
                reader.roleName(SUPPORT_RELEASE_ROLE, "idempotency-operator"),
                reader.bool(TELEMETRY_ENABLED, true),
                reader.duration(SLOW_STORE_THRESHOLD, Duration.ofMillis(100)),
                reader.integer(MAX_DECODED_BODY_EXPANSION, 100, 0, 1_000_000));
        if (settings.tenantSource() == TenantSource.HEADER && settings.tenantHeader().equalsIgnoreCase(keyHeader)) {
            // each tenant's key would be its own tenant: tenants sending one key would share its record
            reader.errors.add(Messages.tenantHeaderIsTheKeys(TENANT_HEADER, settings.tenantHeader(), KEY_HEADER, keyHeader));
        }
        if (!reader.errors.isEmpty()) {
            throw new IdempotencyDefinitionException(String.join("; ", reader.errors));
        }
        return settings;
    }

    /** Reads settings and collects every error, so that one deployment reports them all. */
    private static final class Reader {
        private final ConfigLookup config;
        final List<String> errors = new ArrayList<>();

        Reader(ConfigLookup config) {
            this.config = config;
        }

        int integer(String key, int fallback, long min, long max) {
            return (int) longInteger(key, fallback, min, max);
        }

        long longInteger(String key, long fallback, long min, long max) {
            String raw = config.get(key).map(String::trim).orElse(null);
            if (raw == null) {
                return fallback;
            }
            try {
                long value = Long.parseLong(raw);
                if (value >= min && value <= max) {
                    return value;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            errors.add(Messages.invalidInteger(key, raw, min, max));
            return fallback;
        }

        /** Zero is allowed: it turns a feature off. */
        Duration duration(String key, Duration fallback) {
            return duration(key, fallback, true);
        }

        Duration positiveDuration(String key, Duration fallback) {
            return duration(key, fallback, false);
        }

        private Duration duration(String key, Duration fallback, boolean zeroAllowed) {
            String raw = config.get(key).map(String::trim).orElse(null);
            if (raw == null) {
                return fallback;
            }
            try {
                Duration value = Duration.parse(raw);
                if (!value.isNegative() && (zeroAllowed || !value.isZero()) && value.compareTo(PolicyResolver.LONGEST) <= 0) {
                    return value;
                }
            } catch (DateTimeParseException e) {
                // reported below
            }
            errors.add(zeroAllowed ? Messages.invalidSettingDuration(key, raw)
                    : Messages.invalidPositiveSettingDuration(key, raw));
            return fallback;
        }

        boolean bool(String key, boolean fallback) {
            String raw = config.get(key).map(String::trim).orElse(null);
            if (raw == null) {
                return fallback;
            }
            if (raw.equalsIgnoreCase("true") || raw.equalsIgnoreCase("false")) {
                return Boolean.parseBoolean(raw);
            }
            errors.add(Messages.invalidSettingBoolean(key, raw));
            return fallback;
        }

        String headerName(String key, String fallback) {
            String value = config.get(key).map(String::trim).orElse(fallback);
            if (!isToken(value)) {
                errors.add(Messages.invalidHeaderName(key, value));
                return fallback;
            }
            return value;
        }

        /**
         * The header marking a replay, added to the stored ones: neither one a replay carries
         * already (the marker would join the stored value: {@code Content-Type: true}) nor one
         * that is never replayed (credentials, framing).
         */
        String replayedHeader(Set<String> storedHeaders) {
            String fallback = "Idempotent-Replayed";
            String value = headerName(REPLAYED_HEADER, fallback);
            String name = value.toLowerCase(Locale.ROOT);
            if (isForbidden(name) || storedHeaders.contains(name) || FRAMING_HEADERS.contains(name)) {
                errors.add(Messages.replayedHeaderClashes(REPLAYED_HEADER, value, STORED_HEADERS));
                return fallback;
            }
            return value;
        }

        /** A comma-separated list of web origins, in their one form. */
        Set<String> origins(String key) {
            Set<String> origins = new LinkedHashSet<>();
            for (String listed : listed(key)) {
                WebOrigin.normalised(listed).ifPresentOrElse(origins::add,
                        () -> errors.add(Messages.invalidOrigin(key, listed)));
            }
            return Set.copyOf(origins);
        }

        /** @return the entries of a comma-separated setting, trimmed, the empty ones left out */
        private List<String> listed(String key) {
            List<String> entries = new ArrayList<>();
            for (String raw : config.get(key).orElse("").split(",")) {
                String entry = raw.trim();
                if (!entry.isEmpty()) {
                    entries.add(entry);
                }
            }
            return entries;
        }

        TenantSource tenantSource() {
            String raw = config.get(TENANT_SOURCE).map(String::trim).orElse(null);
            if (raw == null) {
                return TenantSource.NONE;
            }
            for (TenantSource source : TenantSource.values()) {
                if (source.name().equalsIgnoreCase(raw)) {
                    return source;
                }
            }
            errors.add(Messages.invalidTenantSource(TENANT_SOURCE, raw, Arrays.toString(TenantSource.values())));
            return TenantSource.NONE;
        }

        String claimName(String key, String fallback) {
            return name(key, fallback, Messages::invalidClaimName);
        }

        /**
         * A role as {@code isUserInRole} takes it; not the Servlet wildcards, which every
         * authenticated caller holds ({@code **}) or which name no role ({@code *}).
         */
        String roleName(String key, String fallback) {
            String value = name(key, fallback, Messages::invalidRoleName);
            if (value.equals("*") || value.equals("**")) {
                errors.add(Messages.invalidRoleName(key, value, MAX_CLAIM_LENGTH));
                return fallback;
            }
            return value;
        }

        /** A name of 1 to {@value #MAX_CLAIM_LENGTH} printable US-ASCII characters, no spaces. */
        private String name(String key, String fallback, NameError error) {
            String value = config.get(key).map(String::trim).orElse(fallback);
            if (value.isEmpty() || value.length() > MAX_CLAIM_LENGTH || !printable(value, false)) {
                errors.add(error.message(key, value, MAX_CLAIM_LENGTH));
                return fallback;
            }
            return value;
        }

        /** The coded message of a bad name. */
        private interface NameError {
            String message(String key, String value, int maxLength);
        }

        /** A header value the library sends as it is: printable US-ASCII (spaces inside), no line breaks. */
        String challenge(String key) {
            String value = config.get(key).map(String::trim).orElse("");
            if (value.length() > MAX_CHALLENGE_LENGTH || !printable(value, true)) {
                errors.add(Messages.invalidChallenge(key, value, MAX_CHALLENGE_LENGTH));
                return "";
            }
            return value;
        }

        private static boolean printable(String value, boolean spaces) {
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (c > 0x7e || c < 0x20 || (c == ' ' && !spaces)) {
                    return false;
                }
            }
            return true;
        }

        Set<String> storedHeaders() {
            Set<String> headers = new LinkedHashSet<>(DEFAULT_STORED_HEADERS);
            for (String name : listed(STORED_HEADERS)) {
                if (!isToken(name)) {
                    errors.add(Messages.invalidHeaderName(STORED_HEADERS, name));
                } else if (isForbidden(name)) {
                    errors.add(Messages.forbiddenStoredHeader(STORED_HEADERS, name));
                } else {
                    headers.add(name.toLowerCase(Locale.ROOT));
                }
            }
            return Set.copyOf(headers);
        }

        private static boolean isToken(String value) {
            if (value.isEmpty()) {
                return false;
            }
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                boolean alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
                if (!alnum && "!#$%&'*+-.^_`|~".indexOf(c) < 0) {
                    return false;
                }
            }
            return true;
        }
    }
}
