package dev.idempotency.jaxrs.internal;

import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;

import jakarta.json.JsonNumber;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import dev.idempotency.config.BodyPointer;
import dev.idempotency.config.KeySource;
import dev.idempotency.jaxrs.IdempotencyProblem;

/**
 * Where one endpoint's keys come from, set up once from its {@link KeySource}: a request header
 * (the library's key header, or one of the endpoint's own, read by {@link IdempotencyKeyParser}),
 * or a JSON Pointer into the body, whose string, or number as its exact decimal digits, is the key.
 */
final class RequestKeys {

    private final String header;
    private final BodyPointer pointer;
    private final IdempotencyKeyParser parser;
    private final int maxLength;

    /**
     * @param source the endpoint's key source
     * @param libraryHeader the library's key header, for a source that names none
     * @param maxLength the longest key allowed
     */
    RequestKeys(KeySource source, String libraryHeader, int maxLength) {
        this.header = source.header().isEmpty() ? libraryHeader : source.header();
        this.pointer = source.bodyPointer();
        this.parser = new IdempotencyKeyParser(maxLength, header);
        this.maxLength = maxLength;
    }

    /** What was read: a key, or the problem to answer (a missing key is answered only where one is required). */
    record Read(String key, IdempotencyProblem problem, String detail) {
        static Read missing(String detail) {
            return new Read(null, IdempotencyProblem.MISSING_KEY, detail);
        }

        static Read invalid(String detail) {
            return new Read(null, IdempotencyProblem.INVALID_KEY, detail);
        }

        static Read unreadable(String detail) {
            return new Read(null, IdempotencyProblem.UNREADABLE_BODY, detail);
        }

        /** @return whether the request has no key at all */
        boolean missing() {
            return problem == IdempotencyProblem.MISSING_KEY;
        }
    }

    /** @return whether keys are read from the body, which must then be buffered first */
    boolean fromBody() {
        return pointer != null;
    }

    /** @return how answers name the key: its header, or "idempotency key" for one in the body */
    String name() {
        return pointer == null ? header : "idempotency key";
    }

    /**
     * @param values the values of the key header in the request, or {@code null}
     * @return the key
     */
    Read fromHeader(List<String> values) {
        if (values == null || values.isEmpty()) {
            return Read.missing("This endpoint requires an " + header + " header.");
        }
        IdempotencyKeyParser.Result key = parser.parse(values);
        return key.valid() ? new Read(key.key(), null, null) : Read.invalid(key.error() + ".");
    }

    /** @return the header keys are read from, or {@code null} for the body */
    String header() {
        return pointer == null ? header : null;
    }

    /**
     * @param json the request body as JSON
     * @param contentType the request's {@code Content-Type}, or {@code null}
     * @param required whether the endpoint requires a key
     * @return the key at the pointer; where a key is optional, a body declared JSON that cannot be
     *     read as JSON (malformed, nested deeper than the parser goes, not UTF-8) is unreadable,
     *     not keyless: it may hold a key, and must never run unclaimed. An empty body holds none.
     */
    Read fromBody(JsonBodies.Parsed json, String contentType, boolean required) {
        JsonValue document = json.value();
        if (document == null && !required && !json.empty() && declaredJson(contentType)) {
            return Read.unreadable("This endpoint takes its idempotency key from the JSON body at " + pointer
                    + ", and the body, declared JSON, could not be read as JSON; nothing was executed.");
        }
        if (document == null) {
            return Read.missing("This endpoint takes its idempotency key from the JSON body at " + pointer
                    + ", and the body is not JSON.");
        }
        Optional<JsonValue> value = JsonBodies.at(document, pointer);
        String key;
        if (value.isPresent() && value.get() instanceof JsonString text) {
            key = text.getString();
        } else if (value.isPresent() && value.get() instanceof JsonNumber number) {
            key = digits(number.bigDecimalValue());
            if (key == null) {
                return Read.invalid("The idempotency key at " + pointer + " in the body has more than " + maxLength
                        + " characters.");
            }
        } else {
            return Read.missing("This endpoint takes its idempotency key from the JSON body at " + pointer
                    + ", and the body has no string or number there.");
        }
        if (key.isEmpty()) {
            return Read.invalid("The idempotency key at " + pointer + " in the body is empty.");
        }
        if (key.isBlank()) {
            return Read.invalid("The idempotency key at " + pointer + " in the body is blank.");
        }
        if (key.length() > maxLength) {
            return Read.invalid("The idempotency key at " + pointer + " in the body has " + key.length()
                    + " characters; at most " + maxLength + " are allowed.");
        }
        for (int i = 0; i < key.length(); i++) {
            if (key.charAt(i) < 0x20 || key.charAt(i) > 0x7E) {
                return Read.invalid("The idempotency key at " + pointer + " in the body must be printable US-ASCII.");
            }
        }
        return new Read(key, null, null);
    }

    /** @return whether the media type is JSON's: {@code application/json}, {@code text/json} or a {@code +json} type */
    private static boolean declaredJson(String contentType) {
        String type = HeaderParameters.mediaType(contentType);
        return type.equals("application/json") || type.equals("text/json") || type.endsWith("+json");
    }

    /**
     * @return the number's exact decimal digits without trailing zeros ({@code 1e3} and
     *     {@code 1000.0} are {@code 1000}), or {@code null} when they would be longer than a key
     *     may be (counted before they are written: {@code 1e999999999} is short JSON, its digits are not)
     */
    private String digits(BigDecimal number) {
        BigDecimal stripped = number.stripTrailingZeros();
        long length = (stripped.scale() <= 0 ? (long) stripped.precision() - stripped.scale()
                : Math.max(stripped.precision(), stripped.scale() + 1L) + 1) + (stripped.signum() < 0 ? 1 : 0);
        if (length > maxLength) {
            return null;
        }
        return stripped.signum() == 0 ? "0" : stripped.toPlainString();
    }
}
