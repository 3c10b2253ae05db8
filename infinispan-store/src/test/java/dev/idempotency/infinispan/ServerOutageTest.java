package dev.idempotency.infinispan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

import org.infinispan.client.hotrod.RemoteCacheManager;
import org.junit.jupiter.api.Test;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyStoreException;

/**
 * The store when its only server goes away: every operation fails as the SPI's store failure
 * (the HTTP layer answers 503, nothing runs), within the client's timeouts; once a server is
 * back on the same address, empty, the same store and client work again: schema and cache are
 * set up anew, no application restart.
 */
class ServerOutageTest {

    static final Duration LEASE = Duration.ofMinutes(1);

    @Test
    void aStoppedServerIsAStoreFailureAndARestartedOneServesTheSameClientAgain() throws Exception {
        int jgroups = InfinispanServer.freeJGroupsPort();
        String cluster = "idem-outage-" + ProcessHandle.current().pid();
        InfinispanServer server = InfinispanServer.start("outage", cluster, jgroups, "127.0.0.1[" + jgroups + "]");
        int port = server.port();
        RemoteCacheManager manager = new RemoteCacheManager(InfinispanConnection.clientConfiguration(server.clientProperties()));
        try {
            InfinispanIdempotencyStore store = new InfinispanIdempotencyStore(
                    new InfinispanConnection(manager, InfinispanSettings.load(key -> Optional.empty())));
            assertThat(store.claim(key(), "fp", LEASE)).isInstanceOf(ClaimResult.Acquired.class);

            server.close();

            long before = System.nanoTime();
            assertThatThrownBy(() -> store.claim(key(), "fp", LEASE)).isInstanceOf(IdempotencyStoreException.class);
            Duration failedAfter = Duration.ofNanos(System.nanoTime() - before);
            assertThatThrownBy(() -> store.find(key())).isInstanceOf(IdempotencyStoreException.class);

            server = InfinispanServer.start("outage", cluster, jgroups, "127.0.0.1[" + jgroups + "]", port);
            int failuresAfterRestart = 0;
            ClaimResult result = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (result == null && System.nanoTime() < deadline) {
                try {
                    result = store.claim(key(), "fp", LEASE);
                } catch (IdempotencyStoreException stillReconnecting) {
                    failuresAfterRestart++;
                    Thread.sleep(500);
                }
            }
            System.out.println("outage: a claim failed after " + failedAfter.toMillis() + " ms with the server down; "
                    + failuresAfterRestart + " failed attempt(s) after the restart before the same client worked again");
            assertThat(result).as("the same store and client, after the restart").isInstanceOf(ClaimResult.Acquired.class);
        } finally {
            manager.close();
            server.close();
        }
    }

    static String key() {
        return UUID.randomUUID().toString().replace("-", "");
    }
}
