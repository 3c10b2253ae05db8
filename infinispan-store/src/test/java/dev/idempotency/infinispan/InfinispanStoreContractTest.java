package dev.idempotency.infinispan;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;

import org.infinispan.client.hotrod.RemoteCacheManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.contract.IdempotencyStoreContractTest;

/**
 * The store contract against a real Infinispan 15.2 server (its own process, loopback,
 * authentication on), reached the way the store does in an application: the client built from
 * {@code infinispan.client.hotrod.*} properties, the schema registered and the cache created by
 * {@link InfinispanConnection#open}.
 */
class InfinispanStoreContractTest extends IdempotencyStoreContractTest {

    static InfinispanServer server;
    static RemoteCacheManager manager;
    static InfinispanConnection connection;

    @BeforeAll
    static void startServer() throws Exception {
        server = InfinispanServer.single("contract", InfinispanServer.freeJGroupsPort());
        manager = new RemoteCacheManager(InfinispanConnection.clientConfiguration(server.clientProperties()));
        connection = new InfinispanConnection(manager, InfinispanSettings.load(key -> Optional.empty()));
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
    void recordsAreProtoStreamReadableAsJsonThroughTheServersRestApi() throws Exception {
        String key = "rest-" + System.nanoTime();
        String owner = ((ClaimResult.Acquired) createStore().claim(key, "fp-rest", LONG)).owner();

        String answer = server.rest("GET", "/rest/v2/caches/idempotency/" + key, null);

        assertThat(answer).startsWith("200 ")
                .contains("\"_type\"", "dev.idempotency.StoredRecord", "IN_PROGRESS", "fp-rest", owner);
    }

    @Test
    void aTakenOverClaimIsNotTakenOverAgainWithinTheNewLease() throws Exception {
        IdempotencyStore store = createStore();
        String key = freshKey();
        acquire(key, "fp", Duration.ofSeconds(1), LONG);
        elapse(Duration.ofSeconds(1));
        ClaimResult.Acquired taker = (ClaimResult.Acquired) store.claim(key, "fp", LONG, LONG);

        ClaimResult again = store.claim(key, "fp", LONG, LONG);

        assertThat(again).as("the taker's lease lives").isInstanceOf(ClaimResult.Existing.class);
        assertThat(store.complete(key, taker.owner(), sampleOutcome(), LONG)).isTrue();
    }

    @Override
    protected IdempotencyStore createStore() {
        return new InfinispanIdempotencyStore(connection);
    }
}
