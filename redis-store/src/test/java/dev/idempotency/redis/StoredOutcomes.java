package dev.idempotency.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import dev.idempotency.spi.StoredOutcome;

/** Outcomes for the tests that do not extend the contract. */
final class StoredOutcomes {

    private StoredOutcomes() {
    }

    static StoredOutcome sample() {
        return StoredOutcome.of(201, Map.of("Location", List.of("/payments/7")), "{\"id\":7}".getBytes(StandardCharsets.UTF_8));
    }
}
