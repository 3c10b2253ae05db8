package dev.idempotency.infinispan;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.infinispan.client.hotrod.RemoteCache;
import org.infinispan.client.hotrod.RemoteCacheManager;
import org.infinispan.commons.configuration.StringConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.RecordState;

/**
 * A rolling upgrade on a real Infinispan server (one for the class: the server refuses to take a
 * schema back to an older one, so the tests run in the order of the versions they register): nodes of another version of the store share the
 * cache. Records they wrote are written here the way another version would, as JSON through the
 * server's REST API, transcoded by the schema that version registered: our node reads them, and
 * our connect never replaces a newer schema with ours.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SchemaEvolutionTest {

    static final Duration LEASE = Duration.ofMinutes(5);
    static final String FILE = "dev.idempotency.proto";

    /** The schema as the store registered it before it was versioned: its fields required. */
    static final String PREVIOUS_SCHEMA = """
            // File name: dev.idempotency.proto
            // Generated from : dev.idempotency.proto
            syntax = "proto2";
            package dev.idempotency;

            message StoredRecord {
               required string state = 1;
               required string fingerprint = 2;
               required string owner = 3;
               optional int32 outcomeStatus = 4;
               repeated StoredHeader outcomeHeaders = 5;
               optional bytes outcomeBody = 6;
               optional bool bodyStored = 7;
            }

            message StoredHeader {
               required string name = 1;
               required string value = 2;
            }
            """;

    /** A later version's: a field of its own, and a state this version does not know (below). */
    static final String NEWER_SCHEMA = """
            // dev.idempotency schema version 99
            syntax = "proto2";
            package dev.idempotency;

            message StoredHeader {
               optional string name = 1;
               optional string value = 2;
            }

            message StoredRecord {
               optional string state = 1;
               optional string fingerprint = 2;
               optional string owner = 3;
               optional int32 outcomeStatus = 4;
               repeated StoredHeader outcomeHeaders = 5;
               optional bytes outcomeBody = 6;
               optional bool bodyStored = 7;
               optional int64 leaseMillis = 8;
               optional int32 rewrites = 9;
               optional int64 parkedUntil = 10;
            }
            """;

    static InfinispanServer server;
    static RemoteCacheManager manager;

    @BeforeAll
    static void startServer() throws Exception {
        server = InfinispanServer.single("evolution", InfinispanServer.freeJGroupsPort());
        manager = new RemoteCacheManager(InfinispanConnection.clientConfiguration(server.clientProperties()));
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (manager != null) {
            manager.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    @Order(3)
    void aNewerSchemaAnotherNodeRegisteredIsNotReplacedWhenWeConnect() {
        schemas().put(FILE, NEWER_SCHEMA);

        InfinispanConnection.open(manager, settings("evolution-newer"));

        assertThat(schemas().get(FILE)).as("the schema on the server after our connect").isEqualTo(NEWER_SCHEMA);
    }

    @Test
    @Order(2)
    void aRecordInAStateThisVersionDoesNotKnowIsNeverFreeAndNoStoreFailure() throws Exception {
        schemas().put(FILE, NEWER_SCHEMA);
        String cache = "evolution-unknown";
        manager.administration().getOrCreateCache(cache, new StringConfiguration(settings(cache).cacheConfiguration()));
        String parked = "parked-" + System.nanoTime();
        String bare = "bare-" + System.nanoTime();
        write(cache, parked, "{\"_type\":\"dev.idempotency.StoredRecord\",\"state\":\"PARKED\",\"fingerprint\":\"fp\","
                + "\"owner\":\"newer-node\",\"parkedUntil\":1700000000000}");
        // a later version that no longer writes a fingerprint
        write(cache, bare, "{\"_type\":\"dev.idempotency.StoredRecord\",\"state\":\"PARKED\",\"owner\":\"newer-node\"}");

        InfinispanIdempotencyStore store = store(cache);
        ClaimResult same = store.claim(parked, "fp", LEASE);
        ClaimResult other = store.claim(parked, "fp-other", LEASE);
        ClaimResult noFingerprint = store.claim(bare, "fp", LEASE);

        for (ClaimResult claim : List.of(same, other, noFingerprint)) {
            assertThat(claim).as("a claim of a key in an unknown state").isInstanceOf(ClaimResult.Existing.class);
            RecordState state = ((ClaimResult.Existing) claim).record().state();
            assertThat(state).as("never free, never completed").isIn(RecordState.IN_PROGRESS, RecordState.EXECUTED);
        }
        assertThat(store.find(parked)).isPresent();
        assertThat(server.rest("GET", "/rest/v2/caches/" + cache + "/" + parked, null))
                .as("the newer node's record, untouched").startsWith("200").contains("PARKED", "1700000000000");
    }

    @Test
    @Order(1)
    void aRecordWrittenUnderThePreviousSchemaIsReplayedAndTheSchemaUpgraded() throws Exception {
        schemas().put(FILE, PREVIOUS_SCHEMA);
        String cache = "evolution-previous";
        InfinispanSettings settings = settings(cache);
        manager.administration().getOrCreateCache(cache, new StringConfiguration(settings.cacheConfiguration()));
        String key = "previous-" + System.nanoTime();
        byte[] body = "{\"id\":7}".getBytes(StandardCharsets.UTF_8);
        write(cache, key, "{\"_type\":\"dev.idempotency.StoredRecord\",\"state\":\"COMPLETED\",\"fingerprint\":\"fp\","
                + "\"owner\":\"previous-node\",\"outcomeStatus\":201,"
                + "\"outcomeHeaders\":[{\"name\":\"Location\",\"value\":\"/payments/7\"}],"
                + "\"outcomeBody\":\"" + Base64.getEncoder().encodeToString(body) + "\",\"bodyStored\":true}");

        ClaimResult retry = new InfinispanIdempotencyStore(new InfinispanConnection(manager, settings)).claim(key, "fp", LEASE);

        assertThat(retry).isInstanceOf(ClaimResult.Existing.class);
        IdempotencyRecord record = ((ClaimResult.Existing) retry).record();
        assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(record.outcome().status()).isEqualTo(201);
        assertThat(record.outcome().headers()).containsExactlyEntriesOf(Map.of("Location", List.of("/payments/7")));
        assertThat(record.outcome().body()).isEqualTo(body);
        assertThat(schemas().get(FILE)).as("the older schema replaced by ours").isNotEqualTo(PREVIOUS_SCHEMA)
                .doesNotContain("required");
        assertThat(server.rest("GET", "/rest/v2/caches/" + cache + "/" + key, null))
                .as("still readable as JSON under our schema").startsWith("200").contains("COMPLETED", "/payments/7");
    }

    static RemoteCache<String, String> schemas() {
        return manager.getCache(InfinispanConnection.SCHEMA_CACHE);
    }

    static InfinispanSettings settings(String cache) {
        return InfinispanSettings.load(key -> Optional.ofNullable(
                Map.of("idempotency.infinispan.cache", cache).get(key)));
    }

    static InfinispanIdempotencyStore store(String cache) {
        return new InfinispanIdempotencyStore(new InfinispanConnection(manager, settings(cache)));
    }

    /** Writes a record as another version's node would, through the REST API (the server transcodes the JSON). */
    static void write(String cache, String key, String json) throws Exception {
        assertThat(server.rest("PUT", "/rest/v2/caches/" + cache + "/" + key, json, "timeToLiveSeconds", "3600"))
                .as("the write of " + json).startsWith("204");
    }
}
