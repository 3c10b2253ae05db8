package dev.idempotency.redis;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import org.eclipse.microprofile.config.ConfigProvider;

import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.support.ConfigLookup;

/**
 * The store's connection to Redis: the application's {@link IdempotencyRedisClient} when it
 * produces one (got once), else Lettuce clients of its own built once from the
 * {@code idempotency.redis.*} settings and shut down with the application. The settings are
 * validated at deployment; the connection is opened on first use (and again after a failed
 * attempt), so the application deploys while Redis is down and works once it is up.
 *
 * <p>Lettuce reconnects an open connection by itself; meanwhile calls fail at once (commands are
 * rejected while disconnected, never queued), and the connection is not built anew. Only one
 * attempt to connect runs at a time: calls that come meanwhile fail at once ({@code IDEMP0835})
 * rather than wait in line. At every (re)connect the servers' {@code maxmemory-policy} is checked
 * again ({@link RedisRecords#admit()}). Once closed, every call fails ({@code IDEMP0834}).
 *
 * <p>With {@code wait-replicas} above 0 the store's own clients are two, sharing one set of
 * threads: one that reconnects, for the shared connection, and one that never does, for the
 * waited writes' connections ({@link RedisWaitLanes}).
 */
@ApplicationScoped
public class RedisConnection {

    private static final Logger LOG = Logger.getLogger(RedisConnection.class.getName());
    /** How often a cluster client re-reads the topology, beside the refreshes that redirects and reconnects trigger. */
    private static final Duration TOPOLOGY_REFRESH = Duration.ofSeconds(30);
    /** Lettuce's reconnect attempts, from 10 ms apart to at most this: a Redis that is back is used again soon. */
    private static final Duration MAX_RECONNECT_DELAY = Duration.ofSeconds(1);
    /** The waited writes' failures read a cluster's topology again at most this often. */
    private static final Duration MIN_TOPOLOGY_REFRESH = Duration.ofMillis(500);

    @Inject
    @IdempotencyRedisClient
    Instance<AbstractRedisClient> applicationClient;

    private final ReentrantLock connecting = new ReentrantLock();
    /** Counts the (re)connects of the shared connection's client: each one makes the eviction check due. */
    private final AtomicLong connects = new AtomicLong();
    private final RedisConnectionStateListener connectListener = new RedisConnectionStateListener() {
        @Override
        public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
            connects.incrementAndGet();
        }
    };
    private volatile boolean closed;
    private RedisSettings settings;
    private AbstractRedisClient givenClient;
    /** The application's client, got from {@link #applicationClient} once (each get() of a @Dependent bean is a new one). */
    private AbstractRedisClient application;
    private boolean applicationLooked;
    private ClientResources ownResources;
    private AbstractRedisClient ownClient;
    private AbstractRedisClient ownWaitClient;
    private AbstractRedisClient listenedTo;
    private RedisLink link;
    private RedisWaitLanes lanes;
    private volatile RedisRecords records;

    /** For CDI. */
    public RedisConnection() {
    }

    /**
     * Outside a container (tests, tools): clients of its own, from the settings.
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

    /**
     * Connects now and checks the servers; a failure is logged ({@code IDEMP0830}; a refused server
     * has been logged already, {@code IDEMP0831}), not thrown: the store tries again on first use.
     */
    void start() {
        try {
            records();
        } catch (RedisRecords.EvictionRefused refused) {
            // logged SEVERE by the check
        } catch (IdempotencyStoreException e) {
            LOG.warning(RedisMessages.notReachableAtStart(e.getMessage()));
        }
    }

    /**
     * @return the store's operations, connecting first if needed, the servers checked since the last (re)connect
     * @throws IdempotencyStoreException while Redis cannot be reached, while another call connects,
     *     while a server may evict records, and once closed
     */
    RedisRecords records() {
        RedisRecords found = records;
        if (found == null || found.isDead() || closed) {
            found = reconnect();
        }
        found.admit();
        return found;
    }

    private RedisRecords reconnect() {
        if (closed) {
            throw new IdempotencyStoreException(RedisMessages.closed());
        }
        if (!connecting.tryLock()) {
            throw new IdempotencyStoreException(RedisMessages.connecting(settings().where()));
        }
        try {
            if (closed) {
                throw new IdempotencyStoreException(RedisMessages.closed());
            }
            RedisRecords found = records;
            if (found == null || found.isDead()) {
                found = connect();
                records = found;
            }
            return found;
        } finally {
            connecting.unlock();
        }
    }

    private synchronized RedisSettings settings() {
        if (settings == null) {
            settings = RedisSettings.load(ConfigLookup.of(ConfigProvider.getConfig()));
        }
        return settings;
    }

    /** Under {@link #connecting}: closes the waited-write lanes and the shared link, if open. */
    private void closeConnections() {
        if (lanes != null) {
            lanes.close();
            lanes = null;
        }
        if (link != null) {
            link.close();
            link = null;
        }
    }

    /** Under {@link #connecting}: each step (topology, connection, the scripts sent together) within the timeout. */
    private RedisRecords connect() {
        RedisSettings current = settings();
        closeConnections();
        AbstractRedisClient client = client(current);
        if (listenedTo != client) {
            client.addListener(connectListener);
            listenedTo = client;
        }
        RedisLink opened = open(client, client == ownClient ? singleUri(current) : null, current);
        try {
            opened.loadScripts(RedisLink.Deadline.after(current.timeout()));
        } catch (RuntimeException e) {
            opened.close();
            throw e;
        }
        link = opened;
        boolean own = client == ownClient;
        if (current.waitReplicas() > 0) {
            if (!own && client.getOptions().isAutoReconnect()) {
                LOG.warning(RedisMessages.atLeastOnceClient(RedisSettings.WAIT_REPLICAS));
            }
            AbstractRedisClient waitClient = own ? ownWaitClient : client;
            lanes = new RedisWaitLanes(laneOpener(waitClient, own ? singleUri(current) : null),
                    topologyRefresher(waitClient), current.timeout());
        }
        String where = own ? current.where() : "the application's client";
        LOG.info(RedisMessages.connected(where, opened.isCluster(), RedisScript.values().length));
        return new RedisRecords(opened, lanes, current, connects, where,
                own ? "the Redis server " + current.where() : "the Redis server of the application's client");
    }

    private AbstractRedisClient client(RedisSettings current) {
        if (givenClient != null) {
            return givenClient;
        }
        if (!applicationLooked) {
            applicationLooked = true;
            if (applicationClient != null && applicationClient.isResolvable()) {
                application = applicationClient.get();
            }
        }
        if (application != null) {
            return application;
        }
        if (ownClient == null) {
            ownResources = DefaultClientResources.builder()
                    .reconnectDelay(Delay.exponential(Duration.ofMillis(10), MAX_RECONNECT_DELAY, 2,
                            TimeUnit.MILLISECONDS))
                    .build();
            ownClient = createClient(current, ownResources, true);
            if (current.waitReplicas() > 0) {
                ownWaitClient = createClient(current, ownResources, false);
            }
        }
        return ownClient;
    }

    /** @return what opens one more connection for waited writes on the client (the own one never reconnects) */
    private static Supplier<CompletableFuture<? extends StatefulConnection<byte[], byte[]>>> laneOpener(
            AbstractRedisClient client, RedisURI uri) {
        if (client instanceof RedisClusterClient cluster) {
            AtomicBoolean topologyRead = new AtomicBoolean(); // the topology first: connectAsync does not read it
            return () -> topologyRead.get() ? cluster.connectAsync(ByteArrayCodec.INSTANCE)
                    : cluster.refreshPartitionsAsync().toCompletableFuture().thenCompose(read -> {
                        topologyRead.set(true);
                        return cluster.connectAsync(ByteArrayCodec.INSTANCE);
                    });
        }
        RedisClient single = (RedisClient) client;
        if (uri == null) { // the application's client: its own URI, and it connects synchronously
            return () -> {
                try {
                    return CompletableFuture.completedFuture(single.connect(ByteArrayCodec.INSTANCE));
                } catch (RuntimeException e) {
                    return CompletableFuture.failedFuture(new IdempotencyStoreException(
                            RedisMessages.cannotConnect("the application's client", e), e));
                }
            };
        }
        return () -> single.connectAsync(ByteArrayCodec.INSTANCE, uri).toCompletableFuture();
    }

    /**
     * @return for a cluster client, what has it read the topology again after a waited write failed,
     *     at most once per {@link #MIN_TOPOLOGY_REFRESH}: the waited writes go over node connections,
     *     which follow no redirect and trigger none of Lettuce's adaptive refreshes, so after a
     *     failover they kept routing to the old master until the periodic refresh (17 s late once).
     *     For a single node, nothing.
     */
    private static Runnable topologyRefresher(AbstractRedisClient client) {
        if (!(client instanceof RedisClusterClient cluster)) {
            return () -> {
            };
        }
        AtomicLong last = new AtomicLong(System.nanoTime() - MIN_TOPOLOGY_REFRESH.toNanos());
        return () -> {
            long now = System.nanoTime();
            long before = last.get();
            if (now - before >= MIN_TOPOLOGY_REFRESH.toNanos() && last.compareAndSet(before, now)) {
                try {
                    cluster.refreshPartitionsAsync().exceptionally(unread -> {
                        LOG.log(Level.FINE, "reading the Redis Cluster topology again failed", unread);
                        return null;
                    });
                } catch (RuntimeException notStarted) {
                    // a client shutting down: the waited write's own failure is what the caller must see
                    LOG.log(Level.FINE, "reading the Redis Cluster topology again failed", notStarted);
                }
            }
        };
    }

    private static RedisLink open(AbstractRedisClient client, RedisURI uri, RedisSettings current) {
        Duration timeout = current.timeout();
        if (client instanceof RedisClusterClient cluster) {
            // the topology first: connectAsync does not read it by itself
            step(cluster.refreshPartitionsAsync().toCompletableFuture(), current, late -> {
            });
            return new RedisLink(step(cluster.connectAsync(ByteArrayCodec.INSTANCE), current,
                    StatefulConnection::closeAsync), timeout);
        }
        if (client instanceof RedisClient single) {
            if (uri == null) { // the application's client: connect to its own URI
                try {
                    return new RedisLink(single.connect(ByteArrayCodec.INSTANCE), timeout);
                } catch (RuntimeException e) {
                    throw new IdempotencyStoreException(RedisMessages.cannotConnect("the application's client", e), e);
                }
            }
            return new RedisLink(step(single.connectAsync(ByteArrayCodec.INSTANCE, uri).toCompletableFuture(),
                    current, StatefulConnection::closeAsync), timeout);
        }
        throw new IdempotencyStoreException(RedisMessages.unsupportedClient(client.getClass()));
    }

    /** Waits at most the timeout for a step of connecting; what comes later is handed to {@code late}. */
    private static <T> T step(CompletableFuture<T> future, RedisSettings current, Consumer<? super T> late) {
        return RedisLink.awaitStep(future, "connect", current.timeout(), current.timeout(), late,
                cause -> RedisMessages.cannotConnect(current.where(), cause));
    }

    /**
     * @param settings the validated settings
     * @return a client for them: a {@code RedisClusterClient} on a cluster, else a {@code RedisClient};
     *     connect timeout and command timeout from {@code timeout} (a {@code WAIT} may take
     *     {@code wait-timeout} more), commands rejected while disconnected
     */
    static AbstractRedisClient createClient(RedisSettings settings) {
        return createClient(settings, null, true);
    }

    /**
     * @param settings the validated settings
     * @param resources the threads to share, or null for the client's own
     * @param reconnect whether the client's connections reconnect by themselves (at-least-once); the
     *     waited writes' client does not, so that a {@code WAIT} never runs on a new socket
     * @return a client for them, as {@link #createClient(RedisSettings)}
     */
    static AbstractRedisClient createClient(RedisSettings settings, ClientResources resources, boolean reconnect) {
        List<RedisURI> uris = settings.cluster() ? settings.nodes().stream().map(node -> uri(node, settings)).toList()
                : List.of(singleUri(settings));
        SocketOptions socket = SocketOptions.builder().connectTimeout(settings.timeout()).keepAlive(true).build();
        Duration commandTimeout = settings.waitReplicas() > 0 ? settings.timeout().plus(settings.waitTimeout())
                : settings.timeout();
        TimeoutOptions timeouts = TimeoutOptions.enabled(commandTimeout);
        SslOptions ssl = RedisTls.options(settings.trustCertificates(), settings.timeout());
        if (settings.cluster()) {
            RedisClusterClient cluster = resources == null ? RedisClusterClient.create(uris)
                    : RedisClusterClient.create(resources, uris);
            cluster.setOptions(ClusterClientOptions.builder()
                    .socketOptions(socket)
                    .sslOptions(ssl)
                    .timeoutOptions(timeouts)
                    .autoReconnect(reconnect)
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
        RedisClient single = resources == null ? RedisClient.create(uris.get(0)) : RedisClient.create(resources, uris.get(0));
        single.setOptions(ClientOptions.builder()
                .socketOptions(socket)
                .sslOptions(ssl)
                .timeoutOptions(timeouts)
                .autoReconnect(reconnect)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .build());
        return single;
    }

    /**
     * @return the URI of a server that is not a cluster: the one node, or, with
     *     {@code sentinel-master}, the master as the Sentinels name it (Lettuce asks them where it is
     *     at every connect and reconnect)
     */
    private static RedisURI singleUri(RedisSettings settings) {
        RedisSettings.Node first = settings.nodes().get(0);
        if (settings.sentinelMaster().isEmpty()) {
            return uri(first, settings);
        }
        RedisURI.Builder uri = RedisURI.builder().withSentinelMasterId(settings.sentinelMaster().get());
        for (RedisSettings.Node sentinel : settings.nodes()) {
            // each Sentinel with the store's timeout, not Lettuce's default minute
            RedisURI.Builder asked = RedisURI.Builder.redis(sentinel.host(), sentinel.port()).withTimeout(settings.timeout());
            settings.sentinelPassword().ifPresent(asked::withPassword);
            uri.withSentinel(asked.build());
        }
        return authenticated(uri, settings, first);
    }

    private static RedisURI uri(RedisSettings.Node node, RedisSettings settings) {
        return authenticated(RedisURI.Builder.redis(node.host(), node.port()).withSsl(settings.tls()), settings, node);
    }

    /** @return the URI with the timeout, the client's name, the credentials (the settings', else the node's) and the database */
    private static RedisURI authenticated(RedisURI.Builder uri, RedisSettings settings, RedisSettings.Node node) {
        uri.withTimeout(settings.timeout()).withClientName("idempotency");
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

    /**
     * Closes the connections and shuts the store's own clients down; every later call fails
     * ({@code IDEMP0834}) and starts nothing. The application's client is left to the application.
     */
    @PreDestroy
    void close() {
        closed = true;
        connecting.lock(); // an attempt to connect under way ends within the timeout
        try {
            records = null;
            closeConnections();
            if (listenedTo != null) {
                listenedTo.removeListener(connectListener);
                listenedTo = null;
            }
            Duration timeout = settings == null ? Duration.ofSeconds(2) : settings.timeout();
            for (AbstractRedisClient own : new AbstractRedisClient[] {ownWaitClient, ownClient}) {
                if (own != null) {
                    try {
                        own.shutdown(Duration.ZERO, timeout);
                    } catch (RuntimeException e) {
                        LOG.log(Level.FINE, "shutting a Redis client down failed", e);
                    }
                }
            }
            ownWaitClient = null;
            ownClient = null;
            if (ownResources != null) {
                ownResources.shutdown(0, timeout.toMillis(), TimeUnit.MILLISECONDS).awaitUninterruptibly(
                        timeout.toMillis() * 2);
                ownResources = null;
            }
        } finally {
            connecting.unlock();
        }
    }
}
