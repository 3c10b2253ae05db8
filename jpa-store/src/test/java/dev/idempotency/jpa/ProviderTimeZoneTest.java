package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.ZoneId;
import java.util.Map;
import java.util.TimeZone;

import org.junit.jupiter.api.Test;

import dev.idempotency.exceptions.IdempotencyDefinitionException;

/**
 * A persistence unit with {@code hibernate.jdbc.time_zone} in another zone than the JVM's: the
 * provider would bind the store's times in that zone, its own statements in the JVM's (a review
 * traced it; not reproduced on a server here): refused on the store's first call.
 */
class ProviderTimeZoneTest {

    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

    @Test
    void aProviderZoneOtherThanTheJvmsIsRefusedNamingTheSettingTheValueAndTheZone() {
        assertThatThrownBy(() -> ProviderTimeZone.check(Map.of("hibernate.jdbc.time_zone", "UTC"), NEW_YORK))
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageStartingWith("IDEMP0516: persistence unit property hibernate.jdbc.time_zone='UTC' is not"
                        + " allowed with the JPA store on this JVM, whose time zone is 'America/New_York'")
                .hasMessageContaining("allowed: unset, or a zone with the JVM's rules");
        assertThatThrownBy(() -> ProviderTimeZone.check(Map.of("hibernate.jdbc.time_zone", ZoneId.of("Europe/Paris")),
                ZoneId.of("UTC"))).hasMessageStartingWith("IDEMP0516:");
        assertThatThrownBy(() -> ProviderTimeZone.check(Map.of("hibernate.jdbc.time_zone", TimeZone.getTimeZone("UTC")),
                NEW_YORK)).hasMessageStartingWith("IDEMP0516:");
    }

    @Test
    void noProviderZoneOrOneWithTheJvmsRulesIsAllowed() {
        assertThatCode(() -> ProviderTimeZone.check(Map.of(), NEW_YORK)).doesNotThrowAnyException();
        assertThatCode(() -> ProviderTimeZone.check(Map.of("hibernate.jdbc.time_zone", " "), NEW_YORK))
                .doesNotThrowAnyException();
        assertThatCode(() -> ProviderTimeZone.check(Map.of("hibernate.jdbc.time_zone", "UTC"), ZoneId.of("Etc/UTC")))
                .doesNotThrowAnyException();
        assertThatCode(() -> ProviderTimeZone.check(Map.of("hibernate.jdbc.time_zone", "GMT"), ZoneId.of("UTC")))
                .doesNotThrowAnyException();
        assertThatCode(() -> ProviderTimeZone.check(Map.of("hibernate.jdbc.time_zone", "US/Eastern"), NEW_YORK))
                .as("another name of the same rules").doesNotThrowAnyException();
        assertThatCode(() -> ProviderTimeZone.check(Map.of("hibernate.jdbc.time_zone", "Europe/Berlin"),
                ZoneId.of("Europe/Paris"))).as("zones that differ in their history only").doesNotThrowAnyException();
        assertThatCode(() -> ProviderTimeZone.check(Map.of("hibernate.jdbc.time_zone",
                new java.util.SimpleTimeZone(0, "Custom")), NEW_YORK)).as("a zone no ZoneId names").doesNotThrowAnyException();
        assertThatCode(() -> ProviderTimeZone.check(Map.of("hibernate.jdbc.time_zone", "Not/AZone"), NEW_YORK))
                .as("a value Hibernate refuses itself").doesNotThrowAnyException();
    }
}
