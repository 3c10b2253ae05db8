package dev.idempotency.redis;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import dev.idempotency.exceptions.IdempotencyDefinitionException;
import dev.idempotency.spi.support.ConfigLookup;

/**
 * The Redis store's settings ({@code idempotency.redis.*}), read and validated when the
 * application starts: a bad value fails the deployment with a coded message that names the key,
 * the value and what is allowed ({@code IDEMP0801} to {@code IDEMP0816}).
 *
 * @param nodes the servers: one node, the seeds of a Redis Cluster, or the Sentinels ({@code uri},
 *     default {@code redis://localhost:6379}, with {@code sentinel-master}
 *     {@code redis://localhost:26379}; a Sentinel's port is 26379 when its URI gives none)
 * @param cluster whether the servers form a Redis Cluster ({@code cluster}; default: when several
 *     URIs are given without {@code sentinel-master})
 * @param sentinelMaster the name under which the Sentinels of {@code uri} monitor the master
 *     ({@code sentinel-master}): the store asks them where the master is at every (re)connect,
 *     so it follows a failover; not with a cluster, not with TLS (not tested with Sentinel yet)
 * @param sentinelPassword the Sentinels' password ({@code sentinel-password}, with
 *     {@code sentinel-master} only; {@code user} and {@code password} are the master's)
 * @param user the ACL user ({@code user}; else the URI's, else the default user)
 * @param password the password ({@code password}; else the URI's)
 * @param tls whether to connect with TLS ({@code tls}, or {@code rediss://} URIs)
 * @param trustCertificates a PEM file of the certificates to trust, a CA's or the servers' own
 *     ({@code trust-certificates}, with TLS only); without it the JVM's default trust store (on an
 *     application server, the server's). A relative path is resolved here, against the working
 *     directory. The file is read here, at deployment, the way the client reads it (PEM only), and
 *     again at every connect, so a renewed file is used from the next connection on. The server's
 *     certificate must name the host of its URI in any case (host name verification is always on)
 * @param timeout how long any call may take before it fails ({@code timeout}, default
 *     {@value #DEFAULT_TIMEOUT}); also the connect timeout
 * @param keyPrefix put before every key ({@code key-prefix}, default {@value #DEFAULT_PREFIX})
 * @param database the database of a single node ({@code database}, default 0)
 * @param waitReplicas how many replicas must acknowledge a claim, mark or completion
 *     ({@code wait-replicas}, default 0: no {@code WAIT})
 * @param waitTimeout how long {@code WAIT} may wait for them ({@code wait-timeout}, default
 *     {@value #DEFAULT_WAIT_TIMEOUT})
 * @param allowEviction whether to use a Redis whose {@code maxmemory-policy} is not {@code noeviction}
 *     ({@code allow-eviction}, default {@code false}: such a Redis is refused, {@code IDEMP0831})
 */
public record RedisSettings(List<Node> nodes, boolean cluster, Optional<String> sentinelMaster,
        Optional<String> sentinelPassword, Optional<String> user, Optional<String> password,
        boolean tls, Optional<Path> trustCertificates, Duration timeout, String keyPrefix, OptionalInt database,
        int waitReplicas, Duration waitTimeout, boolean allowEviction) {

    static final String PREFIX = "idempotency.redis.";
    static final String URI_KEY = PREFIX + "uri";
    static final String CLUSTER = PREFIX + "cluster";
    static final String SENTINEL_MASTER = PREFIX + "sentinel-master";
    static final String SENTINEL_PASSWORD = PREFIX + "sentinel-password";
    static final String USER = PREFIX + "user";
    static final String PASSWORD = PREFIX + "password";
    static final String TLS = PREFIX + "tls";
    static final String TRUST_CERTIFICATES = PREFIX + "trust-certificates";
    static final String TIMEOUT = PREFIX + "timeout";
    static final String KEY_PREFIX = PREFIX + "key-prefix";
    static final String DATABASE = PREFIX + "database";
    static final String WAIT_REPLICAS = PREFIX + "wait-replicas";
    static final String WAIT_TIMEOUT = PREFIX + "wait-timeout";
    static final String ALLOW_EVICTION = PREFIX + "allow-eviction";

    static final String DEFAULT_URI = "redis://localhost:6379";
    static final String DEFAULT_SENTINEL_URI = "redis://localhost:26379";
    static final int DEFAULT_PORT = 6379;
    static final int DEFAULT_SENTINEL_PORT = 26379;
    static final String DEFAULT_TIMEOUT = "PT2S";
    static final String DEFAULT_PREFIX = "idem:";
    static final String DEFAULT_WAIT_TIMEOUT = "PT1S";
    static final Duration MAX_TIMEOUT = Duration.ofMinutes(5);
    static final Duration MAX_WAIT_TIMEOUT = Duration.ofMinutes(1);
    static final int MAX_PREFIX = 64;
    static final int MAX_WAIT_REPLICAS = 100;

    /**
     * One server as a URI gave it.
     *
     * @param host the host name or address
     * @param port the port
     * @param tls whether the URI was {@code rediss://}
     * @param user the URI's user, if any
     * @param password the URI's password, if any
     */
    public record Node(String host, int port, boolean tls, Optional<String> user, Optional<String> password) {
        @Override
        public String toString() {
            return (tls ? "rediss://" : "redis://") + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        }
    }

    /** Never prints the password. */
    @Override
    public String toString() {
        return "RedisSettings[nodes=" + nodes + ", cluster=" + cluster + ", sentinelMaster=" + sentinelMaster.orElse("-")
                + ", sentinelPassword=" + (sentinelPassword.isPresent() ? "***" : "-") + ", user=" + user.orElse("-")
                + ", password="
                + (password.isPresent() ? "***" : "-") + ", tls=" + tls + ", trustCertificates="
                + trustCertificates.map(Path::toString).orElse("-") + ", timeout=" + timeout + ", keyPrefix='"
                + keyPrefix + "', database=" + database + ", waitReplicas=" + waitReplicas + ", waitTimeout="
                + waitTimeout + ", allowEviction=" + allowEviction + "]";
    }

    /** @return the servers, for messages */
    String where() {
        return sentinelMaster.map(master -> "the master '" + master + "' of the Sentinels " + nodes)
                .orElseGet(nodes::toString);
    }

    /**
     * @param config where the settings are read
     * @return the validated settings
     * @throws IdempotencyDefinitionException naming the key, the value and what is allowed
     */
    public static RedisSettings load(ConfigLookup config) {
        Optional<String> sentinelMaster = value(config, SENTINEL_MASTER);
        if (sentinelMaster.isPresent() && !sentinelMaster.get().chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw new IdempotencyDefinitionException(RedisMessages.badSentinelMaster(SENTINEL_MASTER,
                    sentinelMaster.get()));
        }
        boolean sentinels = sentinelMaster.isPresent();
        String uriValue = value(config, URI_KEY).orElse(sentinels ? DEFAULT_SENTINEL_URI : DEFAULT_URI);
        String shownUris = masked(uriValue); // what messages quote: no user, no password
        List<Node> nodes = new ArrayList<>();
        for (String part : uris(uriValue)) {
            nodes.add(node(shownUris, part.trim(), sentinels ? DEFAULT_SENTINEL_PORT : DEFAULT_PORT));
        }
        Optional<String> clusterValue = value(config, CLUSTER);
        boolean cluster = clusterValue.map(v -> bool(CLUSTER, v)).orElse(nodes.size() > 1 && !sentinels);
        if (sentinels && cluster) {
            throw new IdempotencyDefinitionException(RedisMessages.sentinelConflict(CLUSTER, clusterValue.orElse(""),
                    SENTINEL_MASTER, "a Redis Cluster (it fails over by itself: leave out " + SENTINEL_MASTER + ")"));
        }
        if (nodes.size() > 1 && !cluster && !sentinels) {
            throw new IdempotencyDefinitionException(RedisMessages.severalUrisWithoutCluster(URI_KEY, shownUris, CLUSTER));
        }
        if (sentinels && nodes.stream().anyMatch(node -> node.user().isPresent() || node.password().isPresent())) {
            throw new IdempotencyDefinitionException(RedisMessages.sentinelConflict(URI_KEY, shownUris, SENTINEL_MASTER,
                    "credentials in the URIs, which name the Sentinels only: give the master's in " + USER + " and "
                            + PASSWORD + ", the Sentinels' in " + SENTINEL_PASSWORD));
        }
        Optional<String> sentinelPassword = config.get(SENTINEL_PASSWORD).filter(p -> !p.isEmpty());
        if (sentinelPassword.isPresent() && !sentinels) {
            throw new IdempotencyDefinitionException(RedisMessages.sentinelConflict(SENTINEL_PASSWORD, "***",
                    SENTINEL_MASTER, "no " + SENTINEL_MASTER + " set: it is the Sentinels' password"));
        }
        long secure = nodes.stream().filter(Node::tls).count();
        Optional<String> tlsValue = value(config, TLS);
        boolean tls = tlsValue.map(v -> bool(TLS, v)).orElse(secure > 0);
        if (secure > 0 && secure < nodes.size()) {
            throw new IdempotencyDefinitionException(RedisMessages.tlsConflict(URI_KEY, shownUris, shownUris));
        }
        if (secure > 0 && !tls) {
            throw new IdempotencyDefinitionException(RedisMessages.tlsConflict(TLS, tlsValue.orElse(""), shownUris));
        }
        if (tls && sentinels) {
            throw new IdempotencyDefinitionException(RedisMessages.sentinelConflict(secure > 0 ? URI_KEY : TLS,
                    secure > 0 ? shownUris : tlsValue.orElse(""), SENTINEL_MASTER,
                    "TLS, which this version does not offer with Sentinels (not tested yet)"));
        }
        Optional<Path> trustCertificates = value(config, TRUST_CERTIFICATES).map(file -> trusted(file, tls));
        Optional<String> user = value(config, USER);
        Optional<String> password = config.get(PASSWORD).filter(p -> !p.isEmpty());
        if (user.isPresent() && password.isEmpty() && nodes.stream().anyMatch(node -> node.password().isEmpty())) {
            throw new IdempotencyDefinitionException(RedisMessages.userWithoutPassword(USER, user.get(), PASSWORD));
        }
        Duration timeout = duration(config, TIMEOUT, DEFAULT_TIMEOUT, MAX_TIMEOUT, false);
        String prefix = config.get(KEY_PREFIX).orElse(DEFAULT_PREFIX);
        if (prefix.length() > MAX_PREFIX || !prefix.chars().allMatch(c -> c > 0x20 && c < 0x7f && c != '{' && c != '}')) {
            throw new IdempotencyDefinitionException(RedisMessages.badKeyPrefix(KEY_PREFIX, prefix, MAX_PREFIX));
        }
        OptionalInt database = OptionalInt.empty();
        Optional<String> databaseValue = value(config, DATABASE);
        if (databaseValue.isPresent()) {
            int number = wholeNumber(databaseValue.get());
            if (number < 0) {
                throw new IdempotencyDefinitionException(RedisMessages.badDatabase(DATABASE, databaseValue.get()));
            }
            if (cluster) {
                throw new IdempotencyDefinitionException(RedisMessages.databaseOnCluster(DATABASE, databaseValue.get()));
            }
            database = OptionalInt.of(number);
        }
        int waitReplicas = 0;
        Optional<String> waitValue = value(config, WAIT_REPLICAS);
        if (waitValue.isPresent()) {
            waitReplicas = wholeNumber(waitValue.get());
            if (waitReplicas < 0 || waitReplicas > MAX_WAIT_REPLICAS) {
                throw new IdempotencyDefinitionException(RedisMessages.badWaitReplicas(WAIT_REPLICAS, waitValue.get(),
                        MAX_WAIT_REPLICAS));
            }
        }
        Duration waitTimeout = duration(config, WAIT_TIMEOUT, DEFAULT_WAIT_TIMEOUT, MAX_WAIT_TIMEOUT, true);
        boolean allowEviction = value(config, ALLOW_EVICTION).map(v -> bool(ALLOW_EVICTION, v)).orElse(false);
        return new RedisSettings(List.copyOf(nodes), cluster, sentinelMaster, sentinelPassword, user, password, tls,
                trustCertificates, timeout, prefix,
                database, waitReplicas, waitTimeout, allowEviction);
    }

    /** @return the file, absolute, once the client's own TLS set-up has read it */
    private static Path trusted(String file, boolean tls) {
        if (!tls) {
            throw new IdempotencyDefinitionException(RedisMessages.trustWithoutTls(TRUST_CERTIFICATES, file, TLS));
        }
        try {
            // resolved once, against the server's working directory, so a later change of it cannot move the file
            Path path = Path.of(file).toAbsolutePath(); // not normalized: "link/.." is the OS's to resolve
            RedisTls.check(path);
            return path;
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            throw new IdempotencyDefinitionException(RedisMessages.badTrustCertificates(TRUST_CERTIFICATES, file,
                    RedisMessages.describeWithCause(e)));
        }
    }

    private static Optional<String> value(ConfigLookup config, String key) {
        return config.get(key).map(String::trim).filter(v -> !v.isEmpty());
    }

    /** A comma that starts the next URI: one a password holds (legal in a URI's user information) does not. */
    private static final java.util.regex.Pattern NEXT_URI = java.util.regex.Pattern.compile(",(?=\\s*[A-Za-z][A-Za-z0-9+.-]*://)");

    /** @return the URIs of the setting, split where a comma starts the next one */
    static String[] uris(String setting) {
        return NEXT_URI.split(setting, -1);
    }

    /**
     * @param uris the URI setting, or one of its URIs, as configured
     * @return it with each URI's user and password (everything between its scheme and the last
     *     {@code @}) shown as {@code ***}: quoted in messages, never logged
     */
    static String masked(String uris) {
        StringBuilder shown = new StringBuilder();
        for (String part : uris(uris)) {
            if (shown.length() > 0) {
                shown.append(',');
            }
            int start = part.indexOf("://");
            start = start < 0 ? 0 : start + 3;
            int at = part.lastIndexOf('@'); // a password may hold '/' or '@' unescaped: masked too far rather than not enough
            shown.append(at < start ? part : part.substring(0, start) + "***" + part.substring(at));
        }
        return shown.toString();
    }

    /**
     * @param whole the URI setting, masked, for messages
     * @param configuredPart one of its URIs, as configured
     */
    private static Node node(String whole, String configuredPart, int defaultPort) {
        String text = masked(configuredPart);
        URI uri;
        try {
            uri = new URI(configuredPart);
        } catch (URISyntaxException e) {
            throw new IdempotencyDefinitionException(RedisMessages.badUri(URI_KEY, whole, "'" + text + "': " + e.getReason()));
        }
        String scheme = uri.getScheme();
        if (scheme == null || !(scheme.equalsIgnoreCase("redis") || scheme.equalsIgnoreCase("rediss"))) {
            throw new IdempotencyDefinitionException(RedisMessages.badUri(URI_KEY, whole,
                    "'" + text + "' has the scheme " + scheme));
        }
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw new IdempotencyDefinitionException(RedisMessages.badUri(URI_KEY, whole, "'" + text + "' names no host"));
        }
        if ((uri.getRawPath() != null && !uri.getRawPath().isEmpty() && !uri.getRawPath().equals("/"))
                || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IdempotencyDefinitionException(RedisMessages.uriWithPathOrQuery(URI_KEY, whole));
        }
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = uri.getPort() == -1 ? defaultPort : uri.getPort();
        if (port < 1 || port > 65_535) {
            // java.net.URI takes any number; Lettuce refuses it only when it connects
            throw new IdempotencyDefinitionException(RedisMessages.badUri(URI_KEY, whole,
                    "'" + text + "' has the port " + port + ", outside 1 to 65535"));
        }
        Optional<String> user = Optional.empty();
        Optional<String> password = Optional.empty();
        String userInfo = uri.getUserInfo();
        if (userInfo != null && !userInfo.isEmpty()) {
            int colon = userInfo.indexOf(':');
            if (colon < 0) {
                password = Optional.of(userInfo); // redis://secret@host: a password for the default user
            } else {
                user = Optional.of(userInfo.substring(0, colon)).filter(u -> !u.isEmpty());
                password = Optional.of(userInfo.substring(colon + 1)).filter(p -> !p.isEmpty());
            }
        }
        return new Node(host, port, scheme.equalsIgnoreCase("rediss"), user, password);
    }

    private static boolean bool(String key, String value) {
        if (value.equalsIgnoreCase("true")) {
            return true;
        }
        if (value.equalsIgnoreCase("false")) {
            return false;
        }
        throw new IdempotencyDefinitionException(RedisMessages.badBoolean(key, value));
    }

    /** @return the number, or -1 when the text is none */
    private static int wholeNumber(String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static Duration duration(ConfigLookup config, String key, String fallback, Duration max, boolean waiting) {
        String text = value(config, key).orElse(fallback);
        Duration parsed;
        try {
            parsed = Duration.parse(text);
        } catch (DateTimeParseException e) {
            parsed = null;
        }
        if (parsed == null || parsed.toMillis() < 1 || parsed.compareTo(max) > 0) {
            throw new IdempotencyDefinitionException(waiting ? RedisMessages.badWaitTimeout(key, text, max)
                    : RedisMessages.badTimeout(key, text, max));
        }
        return parsed;
    }
}
