package dev.idempotency.spi.support;

import java.util.Optional;

import org.eclipse.microprofile.config.Config;

/** Reads raw configuration values; an interface so that the resolvers can be tested without a Config. */
@FunctionalInterface
public interface ConfigLookup {

    /**
     * @param key a config key
     * @return its raw value, if set
     */
    Optional<String> get(String key);

    /**
     * @param config a MicroProfile Config
     * @return a lookup of its raw string values
     */
    static ConfigLookup of(Config config) {
        return key -> config.getOptionalValue(key, String.class);
    }
}
