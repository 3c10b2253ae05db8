package dev.idempotency.openapi;

import java.lang.reflect.InvocationTargetException;

import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.models.media.Schema;

/**
 * Typed schemas on every MicroProfile OpenAPI version: 3.x sets a schema's type with
 * {@code type(SchemaType)}, 4.x (OpenAPI 3.1, Jakarta EE 11 servers) with a list of types. The
 * library compiles against 3.x and falls back to 4.x's {@code addType} where the former is gone.
 * Called while the document is built, once.
 */
final class SchemaTypes {

    private SchemaTypes() {
    }

    static Schema string() {
        return typed(Schema.SchemaType.STRING);
    }

    static Schema integer() {
        return typed(Schema.SchemaType.INTEGER);
    }

    static Schema object() {
        return typed(Schema.SchemaType.OBJECT);
    }

    private static Schema typed(Schema.SchemaType type) {
        Schema schema = OASFactory.createSchema();
        try {
            return schema.type(type);
        } catch (NoSuchMethodError e) {
            try {
                return (Schema) Schema.class.getMethod("addType", Schema.SchemaType.class).invoke(schema, type);
            } catch (NoSuchMethodException | IllegalAccessException | InvocationTargetException failed) {
                IllegalStateException error = new IllegalStateException("cannot set a schema type", failed);
                error.addSuppressed(e);
                throw error;
            }
        }
    }
}
