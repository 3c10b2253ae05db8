package dev.idempotency.jaxrs.internal;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import dev.idempotency.internal.JsonText;

/**
 * The RFC 8785 (JSON Canonicalization Scheme) form of a JSON value, as UTF-8: no whitespace,
 * object members sorted by the UTF-16 code units of their names, numbers as ECMAScript writes
 * the IEEE 754 double they denote ({@link EcmaScriptNumbers}), strings with only {@code "},
 * {@code \} and the control characters escaped. Two JSON texts that differ only in member order,
 * insignificant whitespace or the spelling of numbers ({@code 4.50}, {@code 45e-1}) have one form.
 *
 * <p>For input that is not I-JSON (RFC 7493), which RFC 8785 refuses, the form here stays
 * deterministic and tells different values apart rather than failing: a number beyond the double
 * range is written as its exact decimal ({@code 1E+400}, an upper-case {@code E} that no
 * canonical number has), and a lone surrogate in a string as a {@code \}{@code uXXXX} escape (which
 * no other string's form contains, its backslashes being escaped). Duplicate member names are
 * the parser's business: the last one wins, as it does for JSON-B.
 */
final class CanonicalJson {

    private CanonicalJson() {
    }

    /**
     * @param value a JSON value
     * @return its canonical form, UTF-8
     */
    static byte[] of(JsonValue value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void write(JsonValue value, StringBuilder out) {
        switch (value.getValueType()) {
            case OBJECT -> {
                // String order is the order of UTF-16 code units, as RFC 8785 sorts
                Map<String, JsonValue> sorted = new TreeMap<>((JsonObject) value);
                out.append('{');
                boolean first = true;
                for (Map.Entry<String, JsonValue> member : sorted.entrySet()) {
                    if (!first) {
                        out.append(',');
                    }
                    first = false;
                    JsonText.quoted(member.getKey(), out);
                    out.append(':');
                    write(member.getValue(), out);
                }
                out.append('}');
            }
            case ARRAY -> {
                out.append('[');
                boolean first = true;
                for (JsonValue element : (JsonArray) value) {
                    if (!first) {
                        out.append(',');
                    }
                    first = false;
                    write(element, out);
                }
                out.append(']');
            }
            case STRING -> JsonText.quoted(((JsonString) value).getString(), out);
            case NUMBER -> out.append(number(((JsonNumber) value).bigDecimalValue()));
            case TRUE -> out.append("true");
            case FALSE -> out.append("false");
            case NULL -> out.append("null");
        }
    }

    static String number(BigDecimal value) {
        double asDouble = value.doubleValue();
        if (Double.isInfinite(asDouble)) {
            return value.stripTrailingZeros().toString();
        }
        return EcmaScriptNumbers.toString(asDouble);
    }
}
