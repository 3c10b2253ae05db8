package dev.idempotency.jaxrs.internal;

import java.io.ByteArrayInputStream;
import java.io.InputStreamReader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

import jakarta.json.JsonArray;
import jakarta.json.JsonConfig;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import jakarta.json.stream.JsonParser;
import jakarta.json.stream.JsonParserFactory;

import dev.idempotency.config.BodyPointer;

/**
 * Reads buffered request bodies as JSON with the server's JSON-P, whose parser factory is looked
 * up once, when an endpoint that needs it is set up. A body is JSON when it is exactly one JSON
 * text in UTF-8 (RFC 8259; a byte order mark is skipped): trailing content, malformed UTF-8 or an
 * empty body make it no JSON. Of duplicate member names the last wins, as for JSON-B.
 */
final class JsonBodies {

    private final JsonParserFactory parsers;

    /** Looks the JSON-P provider up: at deployment, never per request. */
    JsonBodies() {
        this(JsonProvider.provider());
    }

    JsonBodies(JsonProvider provider) {
        this.parsers = provider.createParserFactory(Map.of(JsonConfig.KEY_STRATEGY, JsonConfig.KeyStrategy.LAST));
    }

    /**
     * @param body a buffered body
     * @return it as a JSON value, parsed on the first call only
     */
    Parsed of(RequestBody body) {
        return new Parsed(body);
    }

    /** One request's body as JSON, parsed when first asked for. */
    final class Parsed {
        private final RequestBody body;
        private boolean parsed;
        private JsonValue value;

        private Parsed(RequestBody body) {
            this.body = body;
        }

        /** @return whether the body is empty (which holds no JSON, and no key) */
        boolean empty() {
            return body.length() == 0;
        }

        /** @return the body's JSON value, or {@code null} when the body is no JSON */
        JsonValue value() {
            if (!parsed) {
                value = parse(body.bytes(), body.length());
                parsed = true;
            }
            return value;
        }
    }

    private JsonValue parse(byte[] bytes, int length) {
        int start = length >= 3 && bytes[0] == (byte) 0xEF && bytes[1] == (byte) 0xBB && bytes[2] == (byte) 0xBF ? 3 : 0;
        if (length - start == 0) {
            return null;
        }
        InputStreamReader utf8 = new InputStreamReader(new ByteArrayInputStream(bytes, start, length - start),
                StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT));
        try (JsonParser parser = parsers.createParser(utf8)) {
            if (!parser.hasNext()) {
                return null;
            }
            parser.next();
            JsonValue value = parser.getValue();
            return parser.hasNext() ? null : value;
        } catch (RuntimeException notJson) {
            // JsonParsingException, or a JsonException around the decoder's MalformedInputException
            return null;
        }
    }

    /**
     * @param document a JSON value
     * @param pointer an RFC 6901 pointer
     * @return the value it points at; empty when there is none (a missing member, an index out of
     *     range or not an index, a step into a string or number). JSON {@code null} is a value.
     */
    static Optional<JsonValue> at(JsonValue document, BodyPointer pointer) {
        JsonValue current = document;
        for (String token : pointer.tokens()) {
            if (current instanceof JsonObject object) {
                current = object.get(token);
            } else if (current instanceof JsonArray array) {
                int index = index(token);
                current = index >= 0 && index < array.size() ? array.get(index) : null;
            } else {
                current = null;
            }
            if (current == null) {
                return Optional.empty();
            }
        }
        return Optional.of(current);
    }

    /** @return the array index RFC 6901 allows ({@code 0}, or digits without a leading zero), else -1 */
    private static int index(String token) {
        if (token.isEmpty() || token.length() > 9 || (token.length() > 1 && token.charAt(0) == '0')) {
            return -1;
        }
        for (int i = 0; i < token.length(); i++) {
            if (token.charAt(i) < '0' || token.charAt(i) > '9') {
                return -1;
            }
        }
        return Integer.parseInt(token);
    }
}
