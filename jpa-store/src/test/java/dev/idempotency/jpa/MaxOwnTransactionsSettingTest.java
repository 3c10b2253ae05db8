package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.idempotency.exceptions.IdempotencyDefinitionException;

/** {@code idempotency.jpa.max-own-transactions}: read when the application starts, a bad value fails it. */
class MaxOwnTransactionsSettingTest {

    @Test
    void unsetItIsTheDefaultAndSetItIsTheValue() {
        assertThat(SeparateRecordTransactions.maxOwnTransactions(key -> Optional.empty()))
                .isEqualTo(SeparateRecordTransactions.DEFAULT_MAX_OWN_TRANSACTIONS);
        assertThat(SeparateRecordTransactions.maxOwnTransactions(
                key -> Optional.ofNullable(Map.of(SeparateRecordTransactions.MAX_OWN_TRANSACTIONS, " 4 ").get(key))))
                .isEqualTo(4);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-3", "1001", "many", ""})
    void aBadValueIsRefusedNamingKeyValueAndWhatIsAllowed(String value) {
        assertThatThrownBy(() -> SeparateRecordTransactions.maxOwnTransactions(key -> Optional.of(value)))
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageContaining("IDEMP0510")
                .hasMessageContaining(SeparateRecordTransactions.MAX_OWN_TRANSACTIONS + "='" + value + "'")
                .hasMessageContaining("an integer from 1 to 1000");
    }
}
