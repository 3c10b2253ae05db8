package dev.idempotency.it.campaign;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.idempotency.infinispan.InfinispanServer;

/**
 * A three-node Infinispan cluster of the campaign's own, set up as docs/stores/infinispan.md tells
 * production to: the caches defined in every server's configuration (two owners,
 * {@code DENY_READ_WRITES} on a split, merge policy {@code NONE}), each node on the JGroups stack
 * that can be cut off from its peers. The nemesis kills one node ({@code kill -9}, started again
 * empty on its ports: it gets its data back from the others), cuts one off from the other two
 * both ways (a partition: clients still reach it, and it refuses the keys it can no longer
 * decide), and freezes one ({@code SIGSTOP}, a slow store that the others may suspect and merge
 * with again). Each heals once the three see each other and report the cluster healthy again, so
 * that no fault meets a cluster still moving its data.
 */
final class CampaignInfinispan implements CampaignResource {

    static final String KILL = "kill -9 Infinispan node";
    static final String PARTITION = "partition Infinispan node";
    static final String FREEZE = "SIGSTOP Infinispan node";
    private static final int NODES = 3;
    private static final Duration REJOIN = Duration.ofSeconds(120);

    private final List<InfinispanServer> nodes = new ArrayList<>();
    private final List<Nemesis.Fault> faults;

    /**
     * @param caches the names of the caches to define, one per store on the cluster
     * @throws Exception when the cluster does not form
     */
    CampaignInfinispan(List<String> caches) throws Exception {
        int[] ports = InfinispanServer.freeJGroupsPorts(NODES);
        String hosts = java.util.Arrays.stream(ports).mapToObj(port -> "127.0.0.1[" + port + "]")
                .collect(Collectors.joining(","));
        String cluster = "idem-campaign-" + ProcessHandle.current().pid();
        String defined = caches.stream().map(InfinispanServer::storeDefaultCache).collect(Collectors.joining());
        List<CompletableFuture<InfinispanServer>> starting = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            int node = i;
            starting.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return InfinispanServer.partitionable("campaign-" + (node + 1), cluster, ports[node], hosts, defined);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        try {
            for (CompletableFuture<InfinispanServer> node : starting) {
                nodes.add(node.get(3, TimeUnit.MINUTES));
            }
            awaitWhole();
        } catch (Exception | Error e) {
            for (CompletableFuture<InfinispanServer> node : starting) {
                node.thenAccept(CampaignInfinispan::closeQuietly);
            }
            throw e;
        }
        faults = List.of(Nemesis.fault(KILL, random -> {
            int which = random.nextInt(NODES);
            long downMs = 300 + random.nextInt(2000);
            nodes.get(which).kill();
            return () -> {
                Thread.sleep(downMs);
                long restart = System.nanoTime();
                nodes.set(which, nodes.get(which).restart());
                awaitWhole();
                return "node " + which + " down " + downMs + " ms, whole again in "
                        + (System.nanoTime() - restart) / 1_000_000 + " ms";
            };
        }), Nemesis.fault(PARTITION, random -> {
            int which = random.nextInt(NODES);
            long holdMs = 2000 + random.nextInt(6000);
            nodes.get(which).isolate();
            return () -> {
                Nemesis.hold(holdMs, nodes.get(which)::heal);
                long heal = System.nanoTime();
                awaitWhole();
                return "node " + which + " cut off " + holdMs + " ms, merged in " + (System.nanoTime() - heal) / 1_000_000 + " ms";
            };
        }), Nemesis.fault(FREEZE, random -> {
            int which = random.nextInt(NODES);
            long holdMs = 1000 + random.nextInt(5000);
            nodes.get(which).signal("STOP");
            return () -> {
                Nemesis.hold(holdMs, () -> nodes.get(which).signal("CONT"));
                awaitWhole();
                return "node " + which + " frozen " + holdMs + " ms";
            };
        }));
    }

    /** Waits until every node sees all three and reports the cluster healthy (its data rebalanced). */
    private void awaitWhole() throws Exception {
        for (InfinispanServer node : nodes) {
            node.awaitMembers(NODES, REJOIN);
        }
    }

    /**
     * @param cache the store's cache
     * @return the Hot Rod client settings for the application: every node, the store's user
     */
    Properties clientProperties(String cache) {
        Properties client = nodes.get(0).clientProperties();
        client.setProperty("infinispan.client.hotrod.server_list",
                nodes.stream().map(node -> "127.0.0.1:" + node.port()).collect(Collectors.joining(";")));
        client.setProperty("idempotency.infinispan.cache", cache);
        return client;
    }

    private static void closeQuietly(InfinispanServer node) {
        try {
            node.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public List<Nemesis.Fault> faults() {
        return faults;
    }

    @Override
    public void close() throws InterruptedException {
        for (InfinispanServer node : nodes) {
            node.close();
        }
    }
}
