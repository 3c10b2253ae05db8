package dev.idempotency.infinispan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.infinispan.client.hotrod.RemoteCacheManager;
import org.junit.jupiter.api.Test;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;

/**
 * The bound of the cache the store creates ({@code idempotency.infinispan.max-entries}), on a real
 * server: once full, a claim of a new key is a store failure (the library answers 503, nothing
 * runs) and no record is evicted to make room: every completed key still replays.
 */
class MemoryBoundTest {

    static final Duration LEASE = Duration.ofMinutes(5);
    static final StoredOutcome OUTCOME = StoredOutcome.of(201, Map.of(), "{\"ok\":true}".getBytes());

    @Test
    void aFullCacheRefusesNewKeysAsAStoreFailureAndEvictsNothing() throws Exception {
        try (InfinispanServer server = InfinispanServer.single("bounded", InfinispanServer.freeJGroupsPort());
                RemoteCacheManager manager = new RemoteCacheManager(
                        InfinispanConnection.clientConfiguration(server.clientProperties()))) {
            Map<String, String> values = Map.of("idempotency.infinispan.cache", "bounded",
                    "idempotency.infinispan.max-entries", "40");
            InfinispanIdempotencyStore store = new InfinispanIdempotencyStore(new InfinispanConnection(manager,
                    InfinispanSettings.load(key -> Optional.ofNullable(values.get(key)))));

            List<String> completed = new ArrayList<>();
            IdempotencyStoreException refused = null;
            for (int i = 0; i < 200 && refused == null; i++) {
                String key = "bounded-" + i;
                try {
                    ClaimResult.Acquired acquired = (ClaimResult.Acquired) store.claim(key, "fp", LEASE);
                    assertThat(store.complete(key, acquired.owner(), OUTCOME, LEASE)).isTrue();
                    completed.add(key);
                } catch (IdempotencyStoreException e) {
                    refused = e;
                }
            }

            assertThat(refused).as("a claim of a new key once 40 entries are stored (200 keys tried)").isNotNull();
            assertThat(completed).as("keys completed before the cache was full").hasSizeGreaterThan(5);
            assertThatThrownBy(() -> store.claim("bounded-new", "fp", LEASE))
                    .as("still full: another new key").isInstanceOf(IdempotencyStoreException.class);
            for (String key : completed) {
                Optional<IdempotencyRecord> record = store.find(key);
                assertThat(record).as("completed key " + key + " while full").isPresent();
                assertThat(record.get().state()).isEqualTo(RecordState.COMPLETED);
                ClaimResult retry = store.claim(key, "fp", LEASE);
                assertThat(retry).as("a retry of " + key + " while full: a replay").isInstanceOf(ClaimResult.Existing.class);
                assertThat(((ClaimResult.Existing) retry).record().outcome()).isEqualTo(OUTCOME);
            }
            System.out.println("memory bound: " + completed.size() + " keys completed before a claim was refused: "
                    + refused.getMessage());
        }
    }
}
