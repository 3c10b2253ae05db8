package dev.idempotency.benchmarks;

import java.util.concurrent.TimeUnit;

import org.apache.camel.component.infinispan.remote.InfinispanRemoteConfiguration;
import org.apache.camel.component.infinispan.remote.InfinispanRemoteIdempotentRepository;
import org.apache.camel.impl.DefaultCamelContext;
import org.infinispan.client.hotrod.Flag;
import org.infinispan.client.hotrod.MetadataValue;
import org.infinispan.client.hotrod.RemoteCache;
import org.infinispan.client.hotrod.RemoteCacheManager;
import org.infinispan.commons.configuration.StringConfiguration;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import dev.idempotency.infinispan.InfinispanConnection;
import dev.idempotency.infinispan.InfinispanIdempotencyStore;
import dev.idempotency.infinispan.InfinispanSettings;

/**
 * The Infinispan store against the raw Hot Rod operations it cannot avoid, and against Apache
 * Camel's idempotent repository, on the same server, the same client and caches of the same
 * configuration (DIST_SYNC, 2 owners, ProtoStream encoding).
 */
@State(Scope.Benchmark)
public class InfinispanStoreBenchmark extends OurStoreBenchmark {

    static final String CACHE_CONFIGURATION = "<distributed-cache mode=\"SYNC\" owners=\"2\">"
            + "<encoding media-type=\"application/x-protostream\"/></distributed-cache>";

    static final String OUR_CACHE = "idempotency-bench";

    private RemoteCacheManager manager;
    private RemoteCache<String, byte[]> raw;
    private RemoteCache<String, byte[]> rawReturning;
    private InfinispanRemoteIdempotentRepository camel;
    private DefaultCamelContext camelContext;
    private byte[] rawClaim;

    @Setup(Level.Trial)
    public void connect() throws Exception {
        manager = client();
        store = ourStore(manager);
        raw = manager.administration().getOrCreateCache("raw-bench", new StringConfiguration(CACHE_CONFIGURATION));
        rawReturning = raw.withFlags(Flag.FORCE_RETURN_VALUE);
        manager.administration().getOrCreateCache("camel-bench", new StringConfiguration(CACHE_CONFIGURATION));
        InfinispanRemoteConfiguration camelConfiguration = new InfinispanRemoteConfiguration();
        camelConfiguration.setCacheContainer(manager);
        camelConfiguration.setEmbeddingStoreEnabled(false);
        camelContext = new DefaultCamelContext();
        camelContext.start();
        camel = new InfinispanRemoteIdempotentRepository("camel-bench");
        camel.setCamelContext(camelContext);
        camel.setConfiguration(camelConfiguration);
        camel.start();
        // the raw claim holds what ours does (a state, the fingerprint, an owner token): about 110 bytes
        rawClaim = new byte[110];
        completeReplayKey();
        raw.put(replayKey, Payloads.BODY, TTL.toSeconds(), TimeUnit.SECONDS);
    }

    /** @return a Hot Rod client of the benchmark server, as the store builds it */
    static RemoteCacheManager client() {
        return new RemoteCacheManager(InfinispanConnection.clientConfiguration(BenchmarkServers.hotRodClient()));
    }

    /** @return our store on the cache {@link #OUR_CACHE} */
    static InfinispanIdempotencyStore ourStore(RemoteCacheManager manager) {
        return new InfinispanIdempotencyStore(new InfinispanConnection(manager,
                new InfinispanSettings(OUR_CACHE, CACHE_CONFIGURATION)));
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        camel.stop();
        camelContext.stop();
        manager.close();
    }

    /**
     * The raw floor of an owner-safe claim and completion: {@code putIfAbsent} (returning the
     * winner), the version of what was put, and {@code replaceWithVersion} with the answer.
     */
    @Benchmark
    public boolean rawPutIfAbsentThenReplaceWithVersion(Keys keys) {
        String key = keys.next();
        if (rawReturning.putIfAbsent(key, rawClaim, LEASE.toSeconds(), TimeUnit.SECONDS) != null) {
            return false;
        }
        MetadataValue<byte[]> put = raw.getWithMetadata(key);
        return raw.replaceWithVersion(key, Payloads.BODY, put.getVersion(), (int) TTL.toSeconds());
    }

    /** Apache Camel's idempotent repository: {@code add} then {@code confirm}; it stores a flag only. */
    @Benchmark
    public boolean camelAddThenConfirm(Keys keys) {
        String key = keys.next();
        return camel.add(key) && camel.confirm(key);
    }

    /** The raw floor of a replay: one {@code getWithMetadata} of an entry holding the answer. */
    @Benchmark
    public MetadataValue<byte[]> rawGetWithMetadata() {
        return raw.getWithMetadata(replayKey);
    }
}
