package dev.idempotency.infinispan;

import java.util.Optional;

import org.infinispan.client.hotrod.RemoteCacheManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

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

    @Override
    protected IdempotencyStore createStore() {
        return new InfinispanIdempotencyStore(connection);
    }
}
