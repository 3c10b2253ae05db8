package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.idempotency.exceptions.IdempotencyDefinitionException;

class PurgeSettingsTest {

    private static PurgeSettings load(Map<String, String> config) {
        return PurgeSettings.load(key -> Optional.ofNullable(config.get(key)));
    }

    @Test
    void theDefaults() {
        assertThat(load(Map.of())).isEqualTo(new PurgeSettings(true, Duration.ofMinutes(5), 500, Duration.ofHours(24)));
    }

    @Test
    void durationsAreBoundedLikeEveryOtherDurationOfTheLibrary() {
        // Longer ones deployed: an interval beyond what milliseconds hold failed the purge job's
        // start with an ArithmeticException; an abandoned-after beyond the database's dates failed
        // every run.
        for (String key : new String[] {"idempotency.jpa.purge.interval", "idempotency.jpa.purge.abandoned-after"}) {
            assertThat(load(Map.of(key, "P36500D"))).isNotNull();
            assertThat(load(Map.of(key, "PT0.001S"))).isNotNull();
            for (String value : new String[] {"P36501D", "PT9223372036854775807S", "PT0S", "PT0.0005S", "-PT1S", "5m"}) {
                assertThatThrownBy(() -> load(Map.of(key, value))).as(key + "=" + value)
                        .isInstanceOf(IdempotencyDefinitionException.class)
                        .hasMessage("IDEMP0503: library setting " + key + "='" + value
                                + "' is not allowed; allowed: an ISO-8601 duration of at least PT0.001S and at most P36500D,"
                                + " such as PT5M");
            }
        }
    }
}
