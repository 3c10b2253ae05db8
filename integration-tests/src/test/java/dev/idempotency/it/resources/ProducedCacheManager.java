package dev.idempotency.it.resources;

import java.util.Properties;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;

import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.infinispan.client.hotrod.RemoteCacheManager;

import dev.idempotency.infinispan.IdempotencyCacheManager;
import dev.idempotency.infinispan.InfinispanConnection;
import dev.idempotency.infinispan.InfinispanSettings;

/**
 * An application that builds the Hot Rod client itself: its settings live under
 * {@code test.hotrod.*}, where the store does not look, so requests only work if the store uses
 * this bean.
 */
@ApplicationScoped
public class ProducedCacheManager {

    public static final String PREFIX = "test.hotrod.";

    @Produces
    @IdempotencyCacheManager
    @ApplicationScoped
    RemoteCacheManager cacheManager() {
        Config config = ConfigProvider.getConfig();
        Properties client = new Properties();
        for (String name : config.getPropertyNames()) {
            if (name.startsWith(PREFIX)) {
                client.setProperty(InfinispanSettings.CLIENT_PREFIX + name.substring(PREFIX.length()),
                        config.getValue(name, String.class));
            }
        }
        return new RemoteCacheManager(InfinispanConnection.clientConfiguration(client));
    }

    void close(@Disposes @IdempotencyCacheManager RemoteCacheManager manager) {
        manager.close();
    }
}
