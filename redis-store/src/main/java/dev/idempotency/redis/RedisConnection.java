package dev.idempotency.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.logging.Logger;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.ByteArrayCodec;
import org.eclipse.microprofile.config.ConfigProvider;

import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.support.ConfigLookup;

/**
 * The store's connection to Redis: the application's {@link IdempotencyRedisClient} when it
 * produces one, else a Lettuce client of its own built once from the {@code idempotency.redis.*}
 * settings and shut down with the application. The settings are validated at deployment; the
 * connection is opened on first use (and again after a failed attempt), so the application deploys
 * while Redis is down and works once it is up. Lettuce reconnects an open connection by itself;
 * meanwhile calls fail at once (commands are rejected while disconnected, never queued).
 */
@ApplicationScoped
public class RedisConnection {

    private static final Logger LOG = Logger.getLogger(RedisConnection.class.getName());
    /** How often a cluster client re-reads the topology, beside the refreshes that redirects and reconnects trigger. */
    private static final Duration TOPOLOGY_REFRESH = Duration.ofSeconds(30);

    @Inject
    @IdempotencyRedisClient
    Instance<AbstractRedisClient> applicationClient;

    private RedisSettings settings;
    private AbstractRedisClient givenClient;
    private AbstractRedisClient ownClient;
    private RedisLink link;
    private volatile RedisRecords records;

    /** For CDI. */
    public RedisConnection() {
    }

    /**
     * Outside a container (tests, tools): a client of its own, from the settings.
     *
     * @param settings the validated settings
     */
    public RedisConnection(RedisSettings settings) {
        this.settings = settings;
    }

    /**
     * Outside a container: on a client someone else owns and shuts down.
     *
     * @param client a {@code RedisClient} with its URI or a {@code RedisClusterClient}
     * @param settings the key prefix, timeout and replica waits
     */
    public RedisConnection(AbstractRedisClient client, RedisSettings settings) {
        this.givenClient = client;
        this.settings = settings;
    }

    /**
     * Validates the settings at deployment (a bad value fails it with a coded message), then
     * connects once: the client's start-up (Netty, some two seconds on a small machine) is paid
     * here rather than by the first request, and an unreachable Redis is reported early.
     */
    void validate(@Observes @Initialized(ApplicationScoped.class) Object started) {
        settings();
        start();
    }

    /** Connects now; a failure is logged ({@code IDEMP0830}), not thrown: the store connects again on first use. */
    void start() {
        try {
            records();
        } catch (IdempotencyStoreException e) {
            LOG.warning(RedisMessages.notReachableAtStart(e.getMessage()));
        }
    }

    /**
     * @return the store's operations, connecting first if needed
     * @throws IdempotencyStoreException while Redis cannot be reached
     */
    RedisRecords records() {
        RedisRecords found = records;
        if (found == null || !found.isOpen()) {
            synchronized (this) {
                found = records;
                if (found == null || !found.isOpen()) {
                    found = connect();
                    records = found;
                }
            }
        }
        return found;
    }

    private synchronized RedisSettings settings() {
        if (settings == null) {
            settings = RedisSettings.load(ConfigLookup.of(ConfigProvider.getConfig()));
        }
        return settings;
    }

    private RedisRecords connect() {
        RedisSettings current = settings();
        if (link != null) {
            link.close();
            link = null;
        }
        AbstractRedisClient client = client(current);
        RedisLink opened = open(client, client == ownClient ? uri(current.nodes().get(0), current) : null, current);
        try {
            opened.loadScripts();
        } catch (RuntimeException e) {
            opened.close();
            throw e;
        }
        link = opened;
        LOG.info(RedisMessages.connected(givenClient != null || ownClient == null ? "the application's client"
                : current.where(), opened.isCluster(), RedisScript.values().length));
        return new RedisRecords(opened, current);
    }

    private AbstractRedisClient client(RedisSettings current) {
        if (givenClient != null) {
            return givenClient;
        }
        if (applicationClient != null && applicationClient.isResolvable()) {
            return applicationClient.get();
        }
        if (ownClient == null) {
            ownClient = createClient(current);
        }
        return ownClient;
    }

    private static RedisLink open(AbstractRedisClient client, RedisURI uri, RedisSettings current) {
        Duration timeout = current.timeout();
        if (client instanceof RedisClusterClient cluster) {
            // the topology first: connectAsync does not read it by itself
            await(cluster.refreshPartitionsAsync().toCompletableFuture(), timeout, current, late -> {
            });
            return new RedisLink(await(cluster.connectAsync(ByteArrayCodec.INSTANCE), timeout, current,
                    StatefulConnection::close), timeout);
        }
        if (client instanceof RedisClient single) {
            if (uri == null) { // the application's client: connect to its own URI
                try {
                    return new RedisLink(single.connect(ByteArrayCodec.INSTANCE), timeout);
                } catch (RuntimeException e) {
                    throw new IdempotencyStoreException(RedisMessages.cannotConnect("the application's client", e), e);
                }
            }
            return new RedisLink(await(single.connectAsync(ByteArrayCodec.INSTANCE, uri).toCompletableFuture(), timeout,
                    current, StatefulConnection::close), timeout);
        }
        throw new IdempotencyStoreException(RedisMessages.unsupportedClient(client.getClass()));
    }

    /** Waits at most the timeout for a step of connecting; what comes later is handed to {@code late}. */
    private static <T> T await(CompletableFuture<T> future, Duration timeout, RedisSettings current, Consumer<T> late) {
        try {
            return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.thenAccept(late);
            throw new IdempotencyStoreException(RedisMessages.timedOut("connect", timeout), e);
        } catch (InterruptedException e) {
            future.thenAccept(late);
            Thread.currentThread().interrupt();
            throw new IdempotencyStoreException(RedisMessages.interrupted("connect"), e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new IdempotencyStoreException(RedisMessages.cannotConnect(current.where(), cause), cause);
        }
    }

    /**
     * @param settings the validated settings
     * @return a client for them: a {@code RedisClusterClient} on a cluster, else a {@code RedisClient};
     *     connect timeout and command timeout from {@code timeout} (a {@code WAIT} may take
     *     {@code wait-timeout} more), commands rejected while disconnected
     */
    static AbstractRedisClient createClient(RedisSettings settings) {
        List<RedisURI> uris = settings.nodes().stream().map(node -> uri(node, settings)).toList();
        SocketOptions socket = SocketOptions.builder().connectTimeout(settings.timeout()).keepAlive(true).build();
        Duration commandTimeout = settings.waitReplicas() > 0 ? settings.timeout().plus(settings.waitTimeout())
                : settings.timeout();
        TimeoutOptions timeouts = TimeoutOptions.enabled(commandTimeout);
        if (settings.cluster()) {
            RedisClusterClient cluster = RedisClusterClient.create(uris);
            cluster.setOptions(ClusterClientOptions.builder()
                    .socketOptions(socket)
                    .timeoutOptions(timeouts)
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enableAdaptiveRefreshTrigger(RefreshTrigger.MOVED_REDIRECT, RefreshTrigger.ASK_REDIRECT,
                                    RefreshTrigger.PERSISTENT_RECONNECTS, RefreshTrigger.UNCOVERED_SLOT,
                                    RefreshTrigger.UNKNOWN_NODE)
                            .enablePeriodicRefresh(TOPOLOGY_REFRESH)
                            .build())
                    .build());
            return cluster;
        }
        RedisClient single = RedisClient.create(uris.get(0));
        single.setOptions(ClientOptions.builder()
                .socketOptions(socket)
                .timeoutOptions(timeouts)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .build());
        return single;
    }

    private static RedisURI uri(RedisSettings.Node node, RedisSettings settings) {
        RedisURI.Builder uri = RedisURI.Builder.redis(node.host(), node.port())
                .withSsl(settings.tls())
                .withTimeout(settings.timeout())
                .withClientName("idempotency");
        var user = settings.user().or(node::user);
        var password = settings.password().or(node::password);
        if (password.isPresent()) {
            if (user.isPresent()) {
                uri.withAuthentication(user.get(), password.get());
            } else {
                uri.withPassword(password.get());
            }
        }
        settings.database().ifPresent(uri::withDatabase);
        return uri.build();
    }

    @PreDestroy
    synchronized void close() {
        if (link != null) {
            link.close();
            link = null;
            records = null;
        }
        if (ownClient != null) {
            ownClient.shutdown(Duration.ZERO, settings().timeout());
            ownClient = null;
        }
    }
}
