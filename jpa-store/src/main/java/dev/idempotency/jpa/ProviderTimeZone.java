package dev.idempotency.jpa;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.zone.ZoneRules;
import java.util.Map;
import java.util.Objects;
import java.util.TimeZone;

import dev.idempotency.exceptions.IdempotencyDefinitionException;

/**
 * Refuses a persistence unit whose provider binds times in a zone of its own
 * ({@code hibernate.jdbc.time_zone}) other than the JVM's. The store writes its times as the JVM's
 * local date-times, in its own statements (bound with {@code Timestamp.valueOf}, no calendar) and
 * through the provider (its entity's mark, completion, reads and purge) alike, and compares them
 * with each other: with that property Hibernate binds the provider's through a calendar of that
 * zone, so the two disagree by the zones' offset. A node five hours west of the property's zone
 * then purged a live claim (a retry ran the work again) and refused every mark; one east of it
 * cut leases and records short. Fails the store's first call ({@code IDEMP0516}), before any record is
 * written or read; a property whose zone has the JVM's rules changes nothing, and is allowed.
 */
final class ProviderTimeZone {

    /** Hibernate's setting for the zone it binds times in. */
    static final String HIBERNATE_JDBC_TIME_ZONE = "hibernate.jdbc.time_zone";

    private ProviderTimeZone() {
    }

    /**
     * @param properties the persistence unit's properties (the entity manager factory's)
     * @param jvm the JVM's default time zone
     * @throws IdempotencyDefinitionException ({@code IDEMP0516}) when the provider binds times in
     *     another zone
     */
    static void check(Map<String, Object> properties, ZoneId jvm) {
        Object value = properties.get(HIBERNATE_JDBC_TIME_ZONE);
        if (value == null || value.toString().isBlank()) {
            return;
        }
        ZoneId provider = zoneOf(value);
        if (provider == null || sameRules(provider.getRules(), jvm.getRules())) {
            return; // a value Hibernate itself refuses is its own error
        }
        throw new IdempotencyDefinitionException(JpaMessages.providerTimeZone(HIBERNATE_JDBC_TIME_ZONE, value.toString(), jvm));
    }

    private static ZoneId zoneOf(Object value) {
        try {
            if (value instanceof ZoneId zone) {
                return zone;
            }
            if (value instanceof TimeZone zone) {
                return zone.toZoneId();
            }
            return ZoneId.of(value.toString().trim(), ZoneId.SHORT_IDS);
        } catch (DateTimeException e) {
            return null;
        }
    }

    /**
     * Only the times around now matter to the store: the same offset now, the same next change and
     * the same rules for the years after (zones that differ only in their history are alike).
     */
    private static boolean sameRules(ZoneRules provider, ZoneRules jvm) {
        Instant now = Instant.now();
        return provider.getOffset(now).equals(jvm.getOffset(now))
                && Objects.equals(provider.nextTransition(now), jvm.nextTransition(now))
                && provider.getTransitionRules().equals(jvm.getTransitionRules());
    }
}
