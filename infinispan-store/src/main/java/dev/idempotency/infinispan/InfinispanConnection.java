package dev.idempotency.infinispan;

import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.infinispan.client.hotrod.Flag;
import org.infinispan.client.hotrod.MetadataValue;
import org.infinispan.client.hotrod.RemoteCache;
import org.infinispan.client.hotrod.RemoteCacheManager;
import org.infinispan.client.hotrod.configuration.ConfigurationBuilder;
import org.infinispan.client.hotrod.exceptions.HotRodClientException;
import org.infinispan.commons.configuration.StringConfiguration;
import org.infinispan.commons.marshall.ProtoStreamMarshaller;

import dev.idempotency.exceptions.IdempotencyDefinitionException;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.support.ConfigLookup;

/**
 * The store's connection to Infinispan: the application's {@link IdempotencyCacheManager} when it
 * produces one, else a {@code RemoteCacheManager} of its own, built once from the
 * {@code infinispan.client.hotrod.*} properties of MicroProfile Config and closed on shutdown.
 * The cache is created when absent and the schema registered on first use (only over an older
 * version of it: see {@link IdempotencySchema}), so the application
 * deploys while the server is down and works once it is up, without a restart.
 */
@ApplicationScoped
public class InfinispanConnection {

    /** The server's cache of ProtoStream schemas. */
    static final String SCHEMA_CACHE = "___protobuf_metadata";
    private static final Logger LOG = Logger.getLogger(InfinispanConnection.class.getName());
    private static final AtomicBoolean NEWER_SCHEMA_LOGGED = new AtomicBoolean();
    /** A key no record has (records are keyed by scoped-key hashes): asked to see that a cache exists. */
    private static final String PROBE_KEY = "\u0000idempotency-probe";

    @Inject
    @IdempotencyCacheManager
    Instance<RemoteCacheManager> applicationManager;

    private InfinispanSettings settings;
    private RemoteCacheManager ownManager;
    private Properties ownProperties;
    private boolean configurationChecked;
    private RemoteCacheManager givenManager;
    private volatile InfinispanRecords records;

    /** For CDI. */
    public InfinispanConnection() {
    }

    /**
     * Outside a container (tests, tools): on a client someone else owns and closes.
     *
     * @param manager a client whose marshaller knows {@link IdempotencySchema}
     * @param settings the cache's name and configuration
     */
    public InfinispanConnection(RemoteCacheManager manager, InfinispanSettings settings) {
        this.givenManager = manager;
        this.settings = settings;
    }

    /**
     * Validates the settings at deployment, and the Hot Rod client's properties where the store
     * makes its own client: a bad value fails it with a coded message, instead of every request.
     */
    void validate(@Observes @Initialized(ApplicationScoped.class) Object started) {
        settings();
        if (givenManager == null && !applicationManager.isResolvable()) {
            Config config = ConfigProvider.getConfig();
            clientConfiguration(InfinispanSettings.clientProperties(config.getPropertyNames(), ConfigLookup.of(config)));
        }
    }

    /**
     * @return the store's logic on the cache, connecting first if needed (again after a
     *     {@link #reset})
     * @throws IdempotencyStoreException while the server cannot be reached
     */
    InfinispanRecords records() {
        InfinispanRecords found = records;
        if (found == null) {
            synchronized (this) {
                found = records;
                if (found == null) {
                    found = connect();
                    records = found;
                }
            }
        }
        return found;
    }

    /**
     * Forgets the cache after a failure, so that the next call registers the schema and creates
     * the cache again: a server that was restarted empty (or a cluster rebuilt) works again
     * without restarting the application. The client itself reconnects on its own.
     */
    void reset() {
        records = null;
    }

    private synchronized InfinispanSettings settings() {
        if (settings == null) {
            settings = InfinispanSettings.load(ConfigLookup.of(ConfigProvider.getConfig()));
        }
        return settings;
    }

    private InfinispanRecords connect() {
        InfinispanRecords opened = open(manager(), settings());
        if (ownProperties != null && !configurationChecked) {
            // once, where the client's properties also say how to reach the REST API
            configurationChecked = true;
            CacheConfigurationCheck.logRisks(ownProperties, settings().cacheName());
        }
        return opened;
    }

    /**
     * Registers the schema on the server, creates the cache when absent and returns the store's
     * logic on it.
     *
     * @param manager a started client whose marshaller knows {@link IdempotencySchema}
     * @param settings the cache's name and configuration
     * @return the store's logic on the cache
     * @throws IdempotencyStoreException when the server cannot be reached or refuses
     */
    public static InfinispanRecords open(RemoteCacheManager manager, InfinispanSettings settings) {
        try {
            registerSchema(manager);
            // an existing cache is used as it is: one defined in the servers' own configuration is not
            // known to getOrCreateCache, which would try to define it again and fail on any difference.
            // The client keeps the handles it gave out, also over a server's restart: a handle must
            // answer before it counts as the cache being there (a restarted server may have lost it)
            RemoteCache<String, StoredRecord> cache = manager.getCache(settings.cacheName());
            if (cache != null && !answers(cache)) {
                cache = null;
            }
            if (cache == null) {
                cache = manager.administration().getOrCreateCache(settings.cacheName(),
                        new StringConfiguration(settings.cacheConfiguration()));
                warnWhenCreatedOnACluster(cache, settings.cacheName());
            }
            return new InfinispanRecords(cache, settings.clockSkew());
        } catch (IdempotencyStoreException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new IdempotencyStoreException("the Infinispan cache '" + settings.cacheName() + "' could not be reached", e);
        }
    }

    /** @return whether the server knows the cache behind the handle (one round trip) */
    private static boolean answers(RemoteCache<String, ?> cache) {
        try {
            cache.containsKey(PROBE_KEY);
            return true;
        } catch (RuntimeException unknownOrUnreachable) {
            return false; // the next step, creating it, reports an unreachable server
        }
    }

    /**
     * An Infinispan coordinator picks a cache's partition-handling strategy when the first node
     * joins the cache, from the definition it holds itself at that moment; a cache created at run
     * time reaches the nodes one by one, and in {@code PartitionTest}'s first runs other nodes
     * joined before the coordinator had it: the coordinator then ran the cache as
     * {@code ALLOW_READ_WRITES} (it logged {@code ISPN000314}, "possible split brain") and, cut off
     * alone, kept accepting claims. That lasts until the coordinator changes. A cache defined in
     * the servers' own configuration is on every node before any starts.
     */
    private static void warnWhenCreatedOnACluster(RemoteCache<?, ?> cache, String name) {
        int servers;
        try {
            servers = cache.getCacheTopologyInfo().getSegmentsPerServer().size();
        } catch (RuntimeException unknown) {
            servers = 0;
        }
        if (servers != 1) {
            LOG.warning(InfinispanMessages.cacheCreatedOnCluster(name, servers));
        }
    }

    /**
     * Registers our schema on the server when it has none or an older one (compare-and-set on the
     * version read, so that of nodes racing with different versions the newest stays); a newer one,
     * registered by a node of a later version during a rolling upgrade, is left as it is: its
     * fields are a superset of ours, and our client marshals with its own copy of our schema.
     */
    static void registerSchema(RemoteCacheManager manager) {
        RemoteCache<String, String> schemas = manager.getCache(SCHEMA_CACHE);
        String name = IdempotencySchema.INSTANCE.getProtoFileName();
        String ours = IdempotencySchema.serverSchema();
        for (int attempt = 0; attempt < 5; attempt++) {
            MetadataValue<String> current = schemas.getWithMetadata(name);
            if (current == null) {
                if (schemas.withFlags(Flag.FORCE_RETURN_VALUE).putIfAbsent(name, ours) == null) {
                    break;
                }
                continue; // another node registered one meanwhile: compare versions with it
            }
            int theirs = IdempotencySchema.versionOf(current.getValue());
            if (theirs > IdempotencySchema.VERSION) {
                if (NEWER_SCHEMA_LOGGED.compareAndSet(false, true)) {
                    LOG.warning(InfinispanMessages.newerSchema(theirs, name, IdempotencySchema.VERSION));
                }
                break;
            }
            if (theirs == IdempotencySchema.VERSION || upgrade(schemas, name, ours, current, theirs)) {
                break;
            }
        }
        String errors = schemas.get(name + ".errors");
        if (errors != null) {
            throw new IdempotencyStoreException("the Infinispan server refused the idempotency schema: " + errors);
        }
    }

    /**
     * Replaces an older version of the schema with ours, if the server accepts it: Infinispan 15.2
     * checks that a schema update is compatible ({@code IPROTO000039}); one it refuses is logged
     * ({@code IDEMP0614}) and kept, since our client marshals with its own copy of the schema and
     * the fields are wire-compatible: only the server's own reading (REST, console) is affected.
     *
     * @return whether this attempt is settled (replaced or refused); false when the entry changed
     *     meanwhile
     */
    private static boolean upgrade(RemoteCache<String, String> schemas, String name, String ours,
            MetadataValue<String> current, int theirs) {
        try {
            return schemas.replaceWithVersion(name, ours, current.getVersion());
        } catch (HotRodClientException e) {
            if (e.getMessage() == null || !e.getMessage().contains("IPROTO")) {
                throw e;
            }
            LOG.warning(InfinispanMessages.schemaUpgradeRefused(theirs, name, IdempotencySchema.VERSION, e.getMessage()));
            return true;
        }
    }

    /**
     * @param client the {@code infinispan.client.hotrod.*} properties
     * @return a client configuration with them and the store's ProtoStream marshalling
     */
    public static org.infinispan.client.hotrod.configuration.Configuration clientConfiguration(Properties client) {
        ConfigurationBuilder builder = new ConfigurationBuilder();
        try {
            builder.withProperties(client);
            // after the properties: a uri's configuration, read by withProperties, replaces the
            // marshaller and the context initializers set before it (and a marshaller property
            // would replace the store's)
            builder.marshaller(new ProtoStreamMarshaller());
            builder.addContextInitializer(IdempotencySchema.INSTANCE);
            return builder.build();
        } catch (RuntimeException e) {
            throw new IdempotencyDefinitionException(InfinispanMessages.unusableClientProperties(client, e.getMessage()));
        }
    }

    private synchronized RemoteCacheManager manager() {
        if (givenManager != null) {
            return givenManager;
        }
        if (applicationManager.isResolvable()) {
            return applicationManager.get();
        }
        if (ownManager == null) {
            Config config = ConfigProvider.getConfig();
            ownProperties = InfinispanSettings.clientProperties(config.getPropertyNames(), ConfigLookup.of(config));
            ownManager = new RemoteCacheManager(clientConfiguration(ownProperties));
        }
        return ownManager;
    }

    @PreDestroy
    synchronized void close() {
        if (ownManager != null) {
            ownManager.close();
        }
    }
}
