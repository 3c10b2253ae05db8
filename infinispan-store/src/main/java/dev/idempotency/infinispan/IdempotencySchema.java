package dev.idempotency.infinispan;

import org.infinispan.protostream.GeneratedSchema;
import org.infinispan.protostream.annotations.ProtoSchema;

/**
 * The ProtoStream schema of the idempotency cache's values; the annotation processor generates
 * {@code IdempotencySchemaImpl}, which the store registers with the client and the server.
 */
@ProtoSchema(includeClasses = {StoredRecord.class, StoredHeader.class},
        schemaFileName = "dev.idempotency.proto",
        schemaFilePath = "proto/",
        schemaPackageName = "dev.idempotency")
public interface IdempotencySchema extends GeneratedSchema {

    /** The schema, for a client's {@code addContextInitializer} and the server's metadata cache. */
    IdempotencySchema INSTANCE = new IdempotencySchemaImpl();
}
