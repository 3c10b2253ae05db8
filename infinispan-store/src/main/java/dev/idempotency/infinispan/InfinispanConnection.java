package dev.idempotency.infinispan;

import java.util.Properties;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.infinispan.client.hotrod.RemoteCache;
import org.infinispan.client.hotrod.RemoteCacheManager;
import org.infinispan.client.hotrod.configuration.ConfigurationBuilder;
import org.infinispan.commons.configuration.StringConfiguration;
import org.infinispan.commons.marshall.ProtoStreamMarshaller;

import dev.idempotency.internal.ConfigLookup;
import dev.idempotency.spi.IdempotencyStoreException;

/**
 * The store's connection to Infinispan: the application's {@link IdempotencyCacheManager} when it
 * produces one, else a {@code RemoteCacheManager} of its own, built once from the
 * {@code infinispan.client.hotrod.*} properties of MicroProfile Config and closed on shutdown.
 * The cache is created when absent and the schema registered on first use, so the application
 * deploys while the server is down and works once it is up, without a restart.
 */
@ApplicationScoped
public class InfinispanConnection {

    /** The server's cache of ProtoStream schemas. */
    static final String SCHEMA_CACHE = "___protobuf_metadata";

    @Inject
    @IdempotencyCacheManager
    Instance<RemoteCacheManager> applicationManager;

    private InfinispanSettings settings;
    private RemoteCacheManager ownManager;
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

    /** Validates the settings at deployment: a bad value fails it with a coded message. */
    void validate(@Observes @Initialized(ApplicationScoped.class) Object started) {
        settings();
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
        return open(manager(), settings());
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
            RemoteCache<String, String> schemas = manager.getCache(SCHEMA_CACHE);
            schemas.put(IdempotencySchema.INSTANCE.getProtoFileName(), IdempotencySchema.INSTANCE.getProtoFile());
            String errors = schemas.get(IdempotencySchema.INSTANCE.getProtoFileName() + ".errors");
            if (errors != null) {
                throw new IdempotencyStoreException("the Infinispan server refused the idempotency schema: " + errors);
            }
            RemoteCache<String, StoredRecord> cache = manager.administration()
                    .getOrCreateCache(settings.cacheName(), new StringConfiguration(settings.cacheConfiguration()));
            return new InfinispanRecords(cache);
        } catch (IdempotencyStoreException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new IdempotencyStoreException("the Infinispan cache '" + settings.cacheName() + "' could not be reached", e);
        }
    }

    /**
     * @param client the {@code infinispan.client.hotrod.*} properties
     * @return a client configuration with them and the store's ProtoStream marshalling
     */
    public static org.infinispan.client.hotrod.configuration.Configuration clientConfiguration(Properties client) {
        ConfigurationBuilder builder = new ConfigurationBuilder();
        builder.withProperties(client);
        builder.marshaller(new ProtoStreamMarshaller());
        builder.addContextInitializer(IdempotencySchema.INSTANCE);
        return builder.build();
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
            ownManager = new RemoteCacheManager(clientConfiguration(
                    InfinispanSettings.clientProperties(config.getPropertyNames(), ConfigLookup.of(config))));
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
