package dev.idempotency.infinispan;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.infinispan.client.hotrod.RemoteCacheManager;
import org.junit.jupiter.api.Test;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;

/**
 * Three Infinispan nodes (the store's default cache: DIST_SYNC, 2 owners, denying reads and writes
 * when split) under a stream of claims and completions from four workers; one node is killed
 * ({@code kill -9}) in the middle: the two others are a majority and hold an owner of every key, so
 * they go on. Afterwards every key completed before the kill still replays, and no key was
 * acquired twice. (Of two nodes, the survivor cannot tell a crash from a split and refuses: see
 * {@link PartitionHandlingTest}.)
 */
class ClusterNodeLossTest {

    static final Duration LEASE = Duration.ofMinutes(5);
    static final StoredOutcome OUTCOME = StoredOutcome.of(201, Map.of(), "{\"ok\":true}".getBytes());

    @Test
    void killingOneOfTwoOwnersLosesNoCompletedRecordAndRunsNoKeyTwice() throws Exception {
        int[] ports = InfinispanServer.freeJGroupsPorts(3);
        String hosts = "127.0.0.1[" + ports[0] + "],127.0.0.1[" + ports[1] + "],127.0.0.1[" + ports[2] + "]";
        String cluster = "idem-trio-" + ProcessHandle.current().pid();
        try (InfinispanServer node1 = InfinispanServer.start("trio-1", cluster, ports[0], hosts);
                InfinispanServer node2 = InfinispanServer.start("trio-2", cluster, ports[1], hosts);
                InfinispanServer node3 = InfinispanServer.start("trio-3", cluster, ports[2], hosts)) {
            Properties client = node1.clientProperties();
            client.setProperty("infinispan.client.hotrod.server_list", "127.0.0.1:" + node1.port() + ";127.0.0.1:"
                    + node2.port() + ";127.0.0.1:" + node3.port());
            try (RemoteCacheManager manager = new RemoteCacheManager(InfinispanConnection.clientConfiguration(client))) {
                InfinispanIdempotencyStore store = new InfinispanIdempotencyStore(
                        new InfinispanConnection(manager, InfinispanSettings.load(key -> Optional.empty())));
                node1.awaitMembers(3, Duration.ofSeconds(60));
                store.find("warm-up"); // creates the cache,
                node1.awaitMembers(3, Duration.ofSeconds(60)); // and lets it rebalance onto every node

                Map<String, AtomicInteger> acquisitions = new ConcurrentHashMap<>();
                List<String> completedBeforeKill = new ArrayList<>();
                Map<String, Boolean> completed = new ConcurrentHashMap<>();
                AtomicInteger failures = new AtomicInteger();
                AtomicBoolean killed = new AtomicBoolean();
                AtomicBoolean stop = new AtomicBoolean();
                List<Thread> workers = new ArrayList<>();
                for (int w = 0; w < 4; w++) {
                    int worker = w;
                    Thread thread = new Thread(() -> {
                        for (int i = 0; !stop.get(); i++) {
                            String key = "trio-" + worker + "-" + i;
                            // a caller retries its own key until the store answers, as clients do
                            for (int attempt = 0; attempt < 50 && !stop.get(); attempt++) {
                                try {
                                    ClaimResult claim = store.claim(key, "fp", LEASE);
                                    if (claim instanceof ClaimResult.Acquired acquired) {
                                        acquisitions.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                                        if (store.complete(key, acquired.owner(), OUTCOME, LEASE)) {
                                            completed.put(key, killed.get());
                                        }
                                    }
                                    break;
                                } catch (IdempotencyStoreException e) {
                                    failures.incrementAndGet();
                                }
                            }
                        }
                    });
                    workers.add(thread);
                    thread.start();
                }
                Thread.sleep(1500);
                completed.forEach((key, afterKill) -> completedBeforeKill.add(key));
                node2.kill();
                killed.set(true);
                Thread.sleep(2500);
                stop.set(true);
                for (Thread thread : workers) {
                    thread.join(30_000);
                }

                int lost = 0;
                for (String key : completedBeforeKill) {
                    Optional<IdempotencyRecord> record = store.find(key);
                    if (record.isEmpty() || record.get().state() != RecordState.COMPLETED) {
                        lost++;
                    }
                }
                long twice = acquisitions.values().stream().filter(n -> n.get() > 1).count();
                System.out.println("node loss: " + acquisitions.size() + " keys claimed, " + completed.size()
                        + " completed (" + completedBeforeKill.size() + " before the kill), " + failures.get()
                        + " store failures during the failover, " + lost + " completed records lost, " + twice
                        + " keys acquired twice");
                assertThat(completedBeforeKill).as("the stream ran before the kill").isNotEmpty();
                assertThat(lost).as("completed records lost").isZero();
                assertThat(twice).as("keys executed twice").isZero();
            }
        }
    }
}
