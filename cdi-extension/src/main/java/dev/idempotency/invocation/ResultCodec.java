package dev.idempotency.invocation;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;

import dev.idempotency.internal.JsonText;

/**
 * Writes method results and arguments as JSON-B, with their generic types, and reads results
 * back. {@code Optional} is unwrapped and rewrapped, since JSON-B writes an empty one as
 * {@code null}. One {@link Jsonb} for the application: it is thread-safe and costly to create.
 */
public final class ResultCodec implements AutoCloseable {

    private final Jsonb jsonb = JsonbBuilder.create();

    /**
     * @param value a value (may be null; a null {@code Optional} is written as an empty one)
     * @param type its generic type
     * @return its JSON, UTF-8
     */
    public byte[] write(Object value, Type type) {
        if (isOptional(type)) {
            // A method may return null, or be passed null, where it declares an Optional.
            Object present = value == null ? null : ((Optional<?>) value).orElse(null);
            return write(present, ((ParameterizedType) type).getActualTypeArguments()[0]);
        }
        return (value == null ? "null" : JsonText.loneSurrogatesEscaped(jsonb.toJson(value, type)))
                .getBytes(StandardCharsets.UTF_8);
    }

    /**
     * @param json what {@link #write} produced
     * @param type the generic type to read
     * @return an equal value
     */
    public Object read(byte[] json, Type type) {
        if (isOptional(type)) {
            return Optional.ofNullable(read(json, ((ParameterizedType) type).getActualTypeArguments()[0]));
        }
        String text = new String(json, StandardCharsets.UTF_8);
        return text.equals("null") ? null : jsonb.fromJson(text, type);
    }

    private static boolean isOptional(Type type) {
        return type instanceof ParameterizedType parameterized && parameterized.getRawType() == Optional.class;
    }

    @Override
    public void close() {
        try {
            jsonb.close();
        } catch (Exception e) {
            // nothing left to do with a Jsonb being discarded
        }
    }
}
