package dev.idempotency.jpa;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;

import dev.idempotency.exceptions.IdempotencyDefinitionException;
import dev.idempotency.spi.support.ConfigLookup;

/**
 * The purge job's settings, validated when the application starts.
 *
 * @param enabled whether this node runs the purge ({@code idempotency.jpa.purge.enabled}, default true)
 * @param interval the pause between runs ({@code idempotency.jpa.purge.interval}, default PT5M)
 * @param batchSize rows per batch and transaction ({@code idempotency.jpa.purge.batch-size}, default 500)
 * @param abandonedAfter how long after its lease an in-progress claim written without its retention
 *     (rows from before claims recorded it: {@code expires_at} NULL) is deleted
 *     ({@code idempotency.jpa.purge.abandoned-after}, default PT24H); every other record, in-progress
 *     claims included, is deleted once its retention ({@code expires_at}) ended
 */
public record PurgeSettings(boolean enabled, Duration interval, int batchSize, Duration abandonedAfter) {

    static final String ENABLED = "idempotency.jpa.purge.enabled";
    static final String INTERVAL = "idempotency.jpa.purge.interval";
    static final String BATCH_SIZE = "idempotency.jpa.purge.batch-size";
    /** The largest {@code batch-size} allowed. */
    static final int LARGEST_BATCH_SIZE = 100_000;
    static final String ABANDONED_AFTER = "idempotency.jpa.purge.abandoned-after";
    /**
     * The longest duration, as for every duration the library reads: a longer interval would not fit
     * the scheduler's milliseconds, a longer abandoned-after not the database's dates.
     */
    static final Duration LONGEST = Duration.ofDays(36_500);
    static final Duration SHORTEST = Duration.ofMillis(1);

    /**
     * @param config where the settings are read
     * @return the validated settings
     * @throws IdempotencyDefinitionException naming the key, the value and what is allowed
     */
    public static PurgeSettings load(ConfigLookup config) {
        String enabled = config.get(ENABLED).map(String::trim).orElse("true").toLowerCase(Locale.ROOT);
        if (!enabled.equals("true") && !enabled.equals("false")) {
            throw new IdempotencyDefinitionException(JpaMessages.invalidPurgeEnabled(ENABLED, enabled));
        }
        String batch = config.get(BATCH_SIZE).map(String::trim).orElse("500");
        int batchSize;
        try {
            batchSize = Integer.parseInt(batch);
        } catch (NumberFormatException e) {
            batchSize = -1;
        }
        if (batchSize < 1 || batchSize > LARGEST_BATCH_SIZE) {
            throw new IdempotencyDefinitionException(JpaMessages.invalidPurgeBatchSize(BATCH_SIZE, batch));
        }
        return new PurgeSettings(enabled.equals("true"), duration(config, INTERVAL, "PT5M"), batchSize,
                duration(config, ABANDONED_AFTER, "PT24H"));
    }

    private static Duration duration(ConfigLookup config, String key, String fallback) {
        String raw = config.get(key).map(String::trim).orElse(fallback);
        try {
            Duration value = Duration.parse(raw);
            // at least a millisecond: the scheduler counts in them, and refuses a pause of none
            if (value.compareTo(SHORTEST) >= 0 && value.compareTo(LONGEST) <= 0) {
                return value;
            }
        } catch (DateTimeParseException e) {
            // reported below
        }
        throw new IdempotencyDefinitionException(JpaMessages.invalidPurgeDuration(key, raw));
    }
}
