package dev.idempotency.openapi;

import java.util.Map;
import java.util.Set;

import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * Names {@link IdempotencyOpenApiFilter} as the application's {@code mp.openapi.filter}, so that
 * dropping the jar in is enough. Its ordinal ({@value #ORDINAL}) is below every standard source:
 * an application that sets {@code mp.openapi.filter} itself keeps its own filter (and may call
 * ours from it).
 */
public class IdempotencyOpenApiConfigSource implements ConfigSource {

    /** Below {@code microprofile-config.properties} (100), environment (300) and system properties (400). */
    public static final int ORDINAL = 50;

    private static final Map<String, String> PROPERTIES = Map.of(IdempotencyOpenApiFilter.MP_OPENAPI_FILTER,
            IdempotencyOpenApiFilter.class.getName());

    @Override
    public Map<String, String> getProperties() {
        return PROPERTIES;
    }

    @Override
    public Set<String> getPropertyNames() {
        return PROPERTIES.keySet();
    }

    @Override
    public String getValue(String propertyName) {
        return PROPERTIES.get(propertyName);
    }

    @Override
    public String getName() {
        return "idempotency-openapi-filter";
    }

    @Override
    public int getOrdinal() {
        return ORDINAL;
    }
}
