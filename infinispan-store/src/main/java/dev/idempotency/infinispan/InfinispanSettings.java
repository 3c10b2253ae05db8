package dev.idempotency.infinispan;

import java.util.Properties;

import dev.idempotency.IdempotencyDefinitionException;
import dev.idempotency.internal.ConfigLookup;

/**
 * The Infinispan store's settings, validated when the application starts.
 *
 * @param cacheName the cache's name ({@code idempotency.infinispan.cache}, default {@code idempotency})
 * @param cacheConfiguration the configuration used to create it when absent
 *     ({@code idempotency.infinispan.cache-configuration}: Infinispan XML or JSON; default a
 *     DIST_SYNC cache with 2 owners storing ProtoStream)
 */
public record InfinispanSettings(String cacheName, String cacheConfiguration) {

    /** The client properties passed through to Hot Rod. */
    public static final String CLIENT_PREFIX = "infinispan.client.hotrod.";
    static final String CACHE = "idempotency.infinispan.cache";
    static final String CACHE_CONFIGURATION = "idempotency.infinispan.cache-configuration";
    static final String DEFAULT_CACHE_CONFIGURATION =
            "<distributed-cache mode=\"SYNC\" owners=\"2\"><encoding media-type=\"application/x-protostream\"/></distributed-cache>";

    /**
     * @param config where the settings are read
     * @return the validated settings
     * @throws IdempotencyDefinitionException naming the key, the value and what is allowed
     */
    public static InfinispanSettings load(ConfigLookup config) {
        String cache = config.get(CACHE).map(String::trim).orElse("idempotency");
        if (cache.isEmpty() || !cache.matches("[A-Za-z0-9._-]+")) {
            throw new IdempotencyDefinitionException("IDEMP0601: library setting " + CACHE + "='" + cache
                    + "' is not allowed; allowed: a cache name of letters, digits, '.', '_' and '-'");
        }
        String configuration = config.get(CACHE_CONFIGURATION).map(String::trim).orElse(DEFAULT_CACHE_CONFIGURATION);
        if (!configuration.startsWith("<") && !configuration.startsWith("{")) {
            throw new IdempotencyDefinitionException("IDEMP0602: library setting " + CACHE_CONFIGURATION + "='"
                    + configuration + "' is not allowed; allowed: an Infinispan cache configuration in XML or JSON");
        }
        return new InfinispanSettings(cache, configuration);
    }

    /**
     * @param names every config property name
     * @param config where their values are read
     * @return the {@code infinispan.client.hotrod.*} properties, for the Hot Rod client
     */
    public static Properties clientProperties(Iterable<String> names, ConfigLookup config) {
        Properties properties = new Properties();
        for (String name : names) {
            if (name.startsWith(CLIENT_PREFIX)) {
                config.get(name).ifPresent(value -> properties.setProperty(name, value));
            }
        }
        return properties;
    }
}
