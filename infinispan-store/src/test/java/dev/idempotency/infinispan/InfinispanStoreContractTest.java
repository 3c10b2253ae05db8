package dev.idempotency.infinispan;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

import org.infinispan.client.hotrod.RemoteCache;
import org.infinispan.client.hotrod.RemoteCacheManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.RecordState;
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

    /**
     * The Hot Rod client sends a write again when its answer did not come within the socket
     * timeout (a node frozen mid-mark wakes to it): the first attempt landed, so the version it
     * moved refuses the second, and the mark answered "not yours". The work then rolled back while
     * another node, after the mark's lease, told a retry its response was lost (the fault
     * campaign, stop 34). Here the cache applies the mark, then answers the client's second
     * attempt: the mark must still count.
     */
    @Test
    void aMarkWhoseWriteTheClientSentTwiceIsMarked() {
        IdempotencyStore store = createStore();
        String key = freshKey();
        String owner = ((ClaimResult.Acquired) store.claim(key, "fp", LONG, LONG)).owner();
        InfinispanRecords resending = new InfinispanRecords(sendingTheNextVersionedReplaceTwice(
                manager.<String, StoredRecord>getCache(InfinispanSettings.load(k -> Optional.empty()).cacheName())));

        assertThat(resending.markExecuted(key, owner, LONG, LONG)).isTrue();

        assertThat(store.find(key)).get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.EXECUTED);
        assertThat(store.complete(key, owner, sampleOutcome(), LONG)).isTrue();
    }

    /** @return the cache, but its next versioned replace is sent twice and answered by the second */
    @SuppressWarnings("unchecked")
    private static RemoteCache<String, StoredRecord> sendingTheNextVersionedReplaceTwice(RemoteCache<String, StoredRecord> cache) {
        AtomicBoolean armed = new AtomicBoolean(true);
        InvocationHandler handler = new InvocationHandler() {
            @Override
            public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
                try {
                    Object answer = method.invoke(cache, args);
                    if (method.getName().equals("withFlags")) {
                        return sendingTheNextVersionedReplaceTwice((RemoteCache<String, StoredRecord>) answer);
                    }
                    if (method.getName().equals("replaceWithVersion") && armed.compareAndSet(true, false)) {
                        return method.invoke(cache, args);
                    }
                    return answer;
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            }
        };
        return (RemoteCache<String, StoredRecord>) Proxy.newProxyInstance(RemoteCache.class.getClassLoader(),
                new Class<?>[] {RemoteCache.class}, handler);
    }

    @Override
    protected IdempotencyStore createStore() {
        return new InfinispanIdempotencyStore(connection);
    }
}
