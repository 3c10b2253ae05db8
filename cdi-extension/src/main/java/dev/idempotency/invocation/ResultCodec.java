package dev.idempotency.invocation;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.json.bind.JsonbConfig;

import dev.idempotency.internal.JsonText;

/**
 * Writes method results and arguments as JSON-B, with their generic types, and reads results
 * back. {@code Optional} is unwrapped and rewrapped, since JSON-B writes an empty one as
 * {@code null}. Results keep their null properties ({@code "status":null}): left out, as JSON-B
 * does by default, a duplicate would read back the property's default from the class's
 * constructor instead of the null the first call returned. Arguments are written as JSON-B does by
 * default, which every stored fingerprint was made with. One {@link Jsonb} of each for the
 * application: thread-safe and costly to create.
 */
public final class ResultCodec implements AutoCloseable {

    private final Jsonb jsonb = JsonbBuilder.create();
    private final Jsonb results = JsonbBuilder.create(new JsonbConfig().withNullValues(true));

    /**
     * @param value an argument (may be null; a null {@code Optional} is written as an empty one)
     * @param type its generic type
     * @return its JSON, UTF-8, as fingerprints are made of
     */
    public byte[] write(Object value, Type type) {
        return write(jsonb, value, type);
    }

    /**
     * Writes a result and reads it back, so that what is stored can be replayed.
     *
     * @param value a result
     * @param type its generic type
     * @return its JSON with its null properties; or, where that cannot be read back (a setter that
     *     refuses null), without them, as JSON-B writes by default (a duplicate then reads the
     *     property's default)
     * @throws UnreadableResult when neither can be read back as {@code type}
     */
    public byte[] writeReadableResult(Object value, Type type) {
        byte[] withNulls = write(results, value, type);
        try {
            read(withNulls, type);
            return withNulls;
        } catch (RuntimeException refused) {
            byte[] withoutNulls = write(value, type);
            if (!Arrays.equals(withoutNulls, withNulls)) {
                try {
                    read(withoutNulls, type);
                    return withoutNulls;
                } catch (RuntimeException alsoRefused) {
                    refused.addSuppressed(alsoRefused);
                }
            }
            throw new UnreadableResult(refused);
        }
    }

    /** A result JSON-B writes but cannot read back as its declared type. */
    public static final class UnreadableResult extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UnreadableResult(RuntimeException cause) {
            super(cause.getMessage(), cause);
        }
    }

    private static byte[] write(Jsonb with, Object value, Type type) {
        if (isOptional(type)) {
            // A method may return null, or be passed null, where it declares an Optional.
            Object present = value == null ? null : ((Optional<?>) value).orElse(null);
            return write(with, present, ((ParameterizedType) type).getActualTypeArguments()[0]);
        }
        return (value == null ? "null" : JsonText.loneSurrogatesEscaped(with.toJson(value, type)))
                .getBytes(StandardCharsets.UTF_8);
    }

    /**
     * @param json what {@link #writeReadableResult} produced (or, before null properties were kept, {@link #write})
     * @param type the generic type to read
     * @return an equal value
     */
    public Object read(byte[] json, Type type) {
        if (isOptional(type)) {
            return Optional.ofNullable(read(json, ((ParameterizedType) type).getActualTypeArguments()[0]));
        }
        String text = new String(json, StandardCharsets.UTF_8);
        return text.equals("null") ? null : results.fromJson(text, type);
    }

    private static boolean isOptional(Type type) {
        return type instanceof ParameterizedType parameterized && parameterized.getRawType() == Optional.class;
    }

    @Override
    public void close() {
        close(jsonb);
        close(results);
    }

    private static void close(Jsonb discarded) {
        try {
            discarded.close();
        } catch (Exception e) {
            // nothing left to do with a Jsonb being discarded
        }
    }
}
