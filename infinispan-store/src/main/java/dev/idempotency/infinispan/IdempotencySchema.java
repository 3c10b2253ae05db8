package dev.idempotency.infinispan;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.infinispan.protostream.GeneratedSchema;
import org.infinispan.protostream.annotations.ProtoSchema;

/**
 * The ProtoStream schema of the idempotency cache's values; the annotation processor generates
 * {@code IdempotencySchemaImpl}, which the store registers with the client and the server.
 *
 * <p>It evolves without breaking nodes of another version that share the cache: every field is
 * optional, field numbers are never reused, and the text registered on the server starts with
 * its {@linkplain #VERSION version} ({@value #VERSION_PREFIX} {@code N}), so that a node
 * registers it only over an older one (or none) and never downgrades a newer one another node
 * registered. Version 1 is the unversioned schema of the first releases (its first three fields
 * required); version 2 made every field optional; version 3 added a claim's lease to the record
 * ({@code leaseMillis}, with the state {@code CLAIMED}) in place of a lease marker entry; version 4
 * added a record's count of rewrites ({@code rewrites}), so that no write of a record repeats the
 * bytes of an earlier one (the server replaces by value equality after its version check).
 */
@ProtoSchema(includeClasses = {StoredRecord.class, StoredHeader.class},
        schemaFileName = "dev.idempotency.proto",
        schemaFilePath = "proto/",
        schemaPackageName = "dev.idempotency")
public interface IdempotencySchema extends GeneratedSchema {

    /** The schema, for a client's {@code addContextInitializer} and the server's metadata cache. */
    IdempotencySchema INSTANCE = new IdempotencySchemaImpl();

    /** This version of the schema; raise it with every change of the message types. */
    int VERSION = 4;

    /** How the registered text names its version, on its first line. */
    String VERSION_PREFIX = "// dev.idempotency schema version";

    /** @return the text registered on the server: the schema, its version on the first line */
    static String serverSchema() {
        return VERSION_PREFIX + " " + VERSION + "\n" + INSTANCE.getProtoFile();
    }

    /**
     * @param registered a schema text found on the server
     * @return its version: 1 when it names none (the first releases')
     */
    static int versionOf(String registered) {
        Matcher version = Pattern.compile("^" + Pattern.quote(VERSION_PREFIX) + " (\\d{1,9})\\b").matcher(registered);
        return version.find() ? Integer.parseInt(version.group(1)) : 1;
    }
}
