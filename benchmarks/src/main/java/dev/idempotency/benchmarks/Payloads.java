package dev.idempotency.benchmarks;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import dev.idempotency.spi.StoredOutcome;

/** What every benchmark stores: a typical created-payment answer, about 1 KiB. */
final class Payloads {

    static final byte[] BODY = ("{\"id\":\"3f1c2a9e-8d7b-4f7e-9a61-0b2c4d6e8f10\",\"orderId\":\"o-1\",\"amount\":1250,"
            + "\"currency\":\"EUR\",\"payer\":\"alice\",\"note\":\"" + "n".repeat(880) + "\"}").getBytes(StandardCharsets.UTF_8);

    static final StoredOutcome OUTCOME = StoredOutcome.of(201, Map.of(
            "Location", List.of("http://localhost:8080/api/payments/3f1c2a9e-8d7b-4f7e-9a61-0b2c4d6e8f10"),
            "Content-Type", List.of("application/json")), BODY);

    /** A fingerprint as the library makes it: a SHA-256 in hex. */
    static final String FINGERPRINT = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    private Payloads() {
    }
}
