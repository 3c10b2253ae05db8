package dev.idempotency.infinispan;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
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

        HttpURLConnection get = (HttpURLConnection) new URL("http://127.0.0.1:" + server.port()
                + "/rest/v2/caches/idempotency/" + key).openConnection();
        get.setRequestProperty("Accept", "application/json");
        get.setRequestProperty("Authorization", "Basic " + Base64.getEncoder()
                .encodeToString((InfinispanServer.USER + ":" + InfinispanServer.PASSWORD).getBytes(StandardCharsets.UTF_8)));

        assertThat(get.getResponseCode()).isEqualTo(200);
        String json = new String(get.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(json).contains("\"_type\"", "dev.idempotency.StoredRecord", "IN_PROGRESS", "fp-rest", owner);
    }

    @Override
    protected IdempotencyStore createStore() {
        return new InfinispanIdempotencyStore(connection);
    }
}
