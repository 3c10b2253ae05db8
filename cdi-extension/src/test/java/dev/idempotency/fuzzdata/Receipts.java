package dev.idempotency.fuzzdata;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.UUID;

/**
 * Result types for the codec fuzz test, the way applications write them. Kept out of Jazzer's
 * instrumentation (see the cdi-extension pom): instrumented, a record loses its MethodParameters
 * attribute and JSON-B could no longer read it back, a false finding.
 */
public final class Receipts {

    private Receipts() {
    }

    /** An enum property. */
    public enum Currency { EUR, USD, CHF }

    /** A nested record. */
    public record Line(String sku, int quantity, BigDecimal price) {
    }

    /** A record with a property of every kind of value a result may hold. */
    public record Receipt(String id, long amount, double rate, boolean settled, Currency currency, List<Line> lines,
            Map<String, String> meta, SortedSet<Integer> codes, Instant at, LocalDate day, UUID ref,
            BigInteger serial) {
    }
}
