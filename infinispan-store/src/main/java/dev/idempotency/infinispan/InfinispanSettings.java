package dev.idempotency.infinispan;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.infinispan.client.hotrod.impl.ConfigurationProperties;

import dev.idempotency.exceptions.IdempotencyDefinitionException;
import dev.idempotency.spi.support.ConfigLookup;

/**
 * The Infinispan store's settings, validated when the application starts.
 *
 * @param cacheName the cache's name ({@code idempotency.infinispan.cache}, default {@code idempotency})
 * @param cacheConfiguration the configuration used to create it when absent
 *     ({@code idempotency.infinispan.cache-configuration}: Infinispan XML or JSON; default a
 *     DIST_SYNC cache with 2 owners storing ProtoStream, bounded to
 *     {@code idempotency.infinispan.max-entries} entries per node (default {@value #DEFAULT_MAX_ENTRIES})
 *     and refusing writes of new entries when full rather than evicting any: the EXCEPTION
 *     strategy, which Infinispan allows on transactional caches only, hence the server-side
 *     transactions; no client transaction manager is involved; split, it denies reads and writes
 *     of keys whose owners are not all in one's partition, so that no key is claimed in two
 *     halves; a merge resolves no conflicts (merge policy NONE): the half that was denied wrote
 *     nothing, and conflict resolution, running while the other half goes on writing, lost
 *     records in {@code PartitionTest})
 * @param clockSkew how far apart the Infinispan servers' clocks may be
 *     ({@code idempotency.infinispan.clock-skew}, an ISO-8601 duration from {@code PT0S} to
 *     {@code PT1M}, default {@code PT0.1S}): a claim in progress is taken over only that long after
 *     its lease ended, since its lease is judged from its creation time on one server's clock and
 *     the time now on another's
 */
public record InfinispanSettings(String cacheName, String cacheConfiguration, Duration clockSkew) {

    /** The client properties passed through to Hot Rod. */
    public static final String CLIENT_PREFIX = "infinispan.client.hotrod.";
    static final String CACHE = "idempotency.infinispan.cache";
    static final String CACHE_CONFIGURATION = "idempotency.infinispan.cache-configuration";
    static final String MAX_ENTRIES = "idempotency.infinispan.max-entries";
    static final String CLOCK_SKEW = "idempotency.infinispan.clock-skew";
    /** Entries per node (a key takes one or two: its record, and its outcome marker for the lease once its work ran). */
    static final long DEFAULT_MAX_ENTRIES = 1_000_000;
    /** Well above what NTP keeps servers within, well below any lease. */
    public static final Duration DEFAULT_CLOCK_SKEW = Duration.ofMillis(100);
    static final Duration MAX_CLOCK_SKEW = Duration.ofMinutes(1);

    /**
     * With the default allowance for the servers' clock skew.
     *
     * @param cacheName the cache's name
     * @param cacheConfiguration the configuration used to create it when absent
     */
    public InfinispanSettings(String cacheName, String cacheConfiguration) {
        this(cacheName, cacheConfiguration, DEFAULT_CLOCK_SKEW);
    }

    /**
     * @param maxEntries the bound, in entries per node
     * @return the configuration of the cache the store creates by default
     */
    static String defaultCacheConfiguration(long maxEntries) {
        return "<distributed-cache mode=\"SYNC\" owners=\"2\">"
                + "<encoding media-type=\"application/x-protostream\"/>"
                + "<transaction mode=\"NON_DURABLE_XA\" locking=\"PESSIMISTIC\"/>"
                + "<memory max-count=\"" + maxEntries + "\" when-full=\"EXCEPTION\"/>"
                + "<partition-handling when-split=\"DENY_READ_WRITES\" merge-policy=\"NONE\"/>"
                + "</distributed-cache>";
    }

    /**
     * @param config where the settings are read
     * @return the validated settings
     * @throws IdempotencyDefinitionException naming the key, the value and what is allowed
     */
    public static InfinispanSettings load(ConfigLookup config) {
        String cache = config.get(CACHE).map(String::trim).orElse("idempotency");
        if (cache.isEmpty() || !cache.matches("[A-Za-z0-9._-]+")) {
            throw new IdempotencyDefinitionException(InfinispanMessages.invalidCacheName(CACHE, cache));
        }
        Optional<String> maxEntries = config.get(MAX_ENTRIES).map(String::trim);
        long bound = DEFAULT_MAX_ENTRIES;
        if (maxEntries.isPresent()) {
            try {
                bound = Long.parseLong(maxEntries.get());
            } catch (NumberFormatException e) {
                bound = 0;
            }
            if (bound < 1) {
                throw new IdempotencyDefinitionException(InfinispanMessages.invalidMaxEntries(MAX_ENTRIES, maxEntries.get()));
            }
        }
        Optional<String> own = config.get(CACHE_CONFIGURATION).map(String::trim);
        if (own.isPresent() && maxEntries.isPresent()) {
            throw new IdempotencyDefinitionException(
                    InfinispanMessages.maxEntriesBesideConfiguration(MAX_ENTRIES, maxEntries.get(), CACHE_CONFIGURATION));
        }
        String configuration = own.orElse(defaultCacheConfiguration(bound));
        if (!configuration.startsWith("<") && !configuration.startsWith("{")) {
            throw new IdempotencyDefinitionException(InfinispanMessages.invalidCacheConfiguration(CACHE_CONFIGURATION, configuration));
        }
        return new InfinispanSettings(cache, configuration, clockSkew(config));
    }

    private static Duration clockSkew(ConfigLookup config) {
        Optional<String> given = config.get(CLOCK_SKEW).map(String::trim);
        if (given.isEmpty()) {
            return DEFAULT_CLOCK_SKEW;
        }
        Duration parsed;
        try {
            parsed = Duration.parse(given.get());
        } catch (DateTimeParseException e) {
            parsed = null;
        }
        if (parsed == null || parsed.isNegative() || parsed.compareTo(MAX_CLOCK_SKEW) > 0) {
            throw new IdempotencyDefinitionException(InfinispanMessages.invalidClockSkew(CLOCK_SKEW, given.get()));
        }
        return parsed;
    }

    /**
     * @param names every config property name
     * @param config where their values are read
     * @return the {@code infinispan.client.hotrod.*} properties, for the Hot Rod client
     */
    public static Properties clientProperties(Iterable<String> names, ConfigLookup config) {
        Properties properties = new Properties();
        // Hot Rod's own names, asked for: a setting given as an environment variable is found by
        // MicroProfile Config's rule (INFINISPAN_CLIENT_HOTROD_SERVER_LIST for ...server_list), though
        // the configuration lists it under another name (SmallRye: ...server.list) or its own
        for (String name : HOT_ROD_NAMES) {
            config.get(name).ifPresent(value -> properties.setProperty(name, value));
        }
        for (String name : names) {
            // the names of families Hot Rod does not list (a cache's, a cluster's), as they are; not a
            // known name listed in a variable's form, which is read above
            if (name.startsWith(CLIENT_PREFIX) && !HOT_ROD_VARIABLE_FORMS.contains(variableForm(name))) {
                config.get(name).ifPresent(value -> properties.setProperty(name, value));
            }
        }
        return properties;
    }

    /** @return the name as an environment variable spells it, lower case: what SmallRye's listed name and Hot Rod's share */
    private static String variableForm(String name) {
        return name.replaceAll("[^A-Za-z0-9]", "_").toLowerCase(Locale.ROOT);
    }

    /** The names of Hot Rod's client properties, from its own constants (read once). */
    private static final Set<String> HOT_ROD_NAMES = hotRodNames();
    private static final Set<String> HOT_ROD_VARIABLE_FORMS = HOT_ROD_NAMES.stream().map(InfinispanSettings::variableForm)
            .collect(Collectors.toUnmodifiableSet());

    private static Set<String> hotRodNames() {
        Set<String> names = new TreeSet<>();
        for (Field field : ConfigurationProperties.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                try {
                    String name = (String) field.get(null);
                    // the single properties (connection_pool.max_active too), not the families' patterns ("...cluster.")
                    if (name != null && name.startsWith(CLIENT_PREFIX) && !name.endsWith(".") && name.indexOf('%') < 0) {
                        names.add(name);
                    }
                } catch (IllegalAccessException e) {
                    // a constant that is not public: not a name clients set
                }
            }
        }
        return Set.copyOf(names);
    }
}
