package dev.idempotency.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A Redis Cluster of real servers: 3 masters and 3 replicas on six loopback ports, ACL as {@link
 * RedisServer}. A {@linkplain #partitionable partitionable} one can cut a node off from the others.
 */
public final class RedisCluster implements AutoCloseable {

    public final List<RedisServer> nodes = new ArrayList<>();
    /** The proxied cluster bus of a partitionable cluster, else null. */
    private ClusterBus bus;

    public static RedisCluster start(String name, int firstPort) throws Exception {
        return start(name, firstPort, false);
    }

    /**
     * A cluster whose nodes can be cut off ({@link #isolate}): its bus links run through {@link
     * ClusterBus} proxies on each node's port + 20000.
     */
    public static RedisCluster partitionable(String name, int firstPort) throws Exception {
        return start(name, firstPort, true);
    }

    private static RedisCluster start(String name, int firstPort, boolean partitionable) throws Exception {
        RedisCluster cluster = new RedisCluster();
        try {
            if (partitionable) {
                cluster.bus = new ClusterBus();
            }
            for (int i = 0; i < 6; i++) {
                int port = firstPort + i;
                List<String> options = new ArrayList<>(List.of("--cluster-enabled", "yes", "--cluster-config-file",
                        "nodes.conf", "--cluster-node-timeout", "2000",
                        // a replica's full sync starts at once, not after the default 5 s wait for more replicas
                        "--repl-diskless-sync-delay", "0"));
                if (partitionable) {
                    cluster.bus.add(port);
                    options.addAll(List.of("--cluster-announce-bus-port", String.valueOf(ClusterBus.announcedPort(port))));
                }
                cluster.nodes.add(RedisServer.start(name + "-" + (i + 1), port, options.toArray(String[]::new)));
            }
            List<String> create = new ArrayList<>(List.of("--cluster", "create"));
            for (RedisServer node : cluster.nodes) {
                create.add("127.0.0.1:" + node.port);
            }
            create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
            String out = cluster.nodes.get(0).cli(create.toArray(String[]::new));
            if (!out.contains("All 16384 slots covered")) {
                throw new IllegalStateException("cluster create failed: " + out);
            }
            cluster.awaitSettled();
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /**
     * Waits until every node sees a healthy cluster of six with no node flagged failing (so no
     * failover is still to come) and every master has its replica, its link up.
     *
     * @throws InterruptedException when interrupted
     */
    public void awaitSettled() throws InterruptedException {
        for (RedisServer node : nodes) {
            node.await("cluster_state:ok with 6 known nodes, none failing", Duration.ofSeconds(30), () -> {
                String info = node.cli("CLUSTER", "INFO");
                return info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:6")
                        && !node.cli("CLUSTER", "NODES").contains("fail");
            });
        }
        for (RedisServer node : nodes) {
            node.await("replication settled", Duration.ofSeconds(30), () -> {
                String replication = node.cli("INFO", "replication");
                return replication.contains("role:master") ? replication.contains("connected_slaves:1")
                        : replication.contains("master_link_status:up");
            });
        }
    }

    /** @return the seeds the store is given: two of the masters */
    public String uris() {
        return nodes.get(0).uri() + "," + nodes.get(1).uri();
    }

    /** @return the masters, as they are now */
    public List<RedisServer> masters() {
        return nodes.stream().filter(node -> node.cli("ROLE").startsWith("master")).toList();
    }

    /**
     * Waits until the cluster has three live masters again without the given node (a replica of
     * it promoted) and reports itself healthy.
     *
     * @param victim a master that was killed or frozen
     * @throws InterruptedException when interrupted
     */
    public void awaitPromotedInsteadOf(RedisServer victim) throws InterruptedException {
        RedisServer survivor = nodes.stream().filter(node -> node != victim).findFirst().orElseThrow();
        survivor.await("a replica promoted", Duration.ofSeconds(30), () -> nodes.stream()
                .filter(node -> node != victim).filter(node -> node.cli("ROLE").startsWith("master")).count() == 3
                && survivor.cli("CLUSTER", "INFO").contains("cluster_state:ok"));
    }

    /**
     * Waits until a node that was replaced is a replica again: its link to its master up, and
     * every master seeing its one replica.
     *
     * @param rejoined the node started again (or thawed)
     * @throws InterruptedException when interrupted
     */
    public void awaitReplicaAgain(RedisServer rejoined) throws InterruptedException {
        rejoined.await("the node back as a replica", Duration.ofSeconds(30), () -> {
            String replication = rejoined.cli("INFO", "replication");
            return replication.contains("role:slave") && replication.contains("master_link_status:up")
                    && masters().stream().allMatch(master -> master.cli("INFO", "replication").contains("connected_slaves:1"));
        });
    }

    /**
     * @param node a master
     * @param candidates the keys to try, by number, until one fits
     * @param storedAs what is put before a key where it is stored (the store's prefix, or "")
     * @return the first candidate whose stored key lives in a slot the node serves
     */
    public static String keyServedBy(RedisServer node, java.util.function.IntFunction<String> candidates, String storedAs) {
        String mine = node.cli("CLUSTER", "NODES").lines().filter(line -> line.contains("myself")).findFirst()
                .orElseThrow();
        String[] range = mine.substring(mine.lastIndexOf(' ') + 1).split("-");
        int first = Integer.parseInt(range[0]);
        int last = Integer.parseInt(range[1]);
        for (int i = 0;; i++) {
            String key = candidates.apply(i);
            int slot = io.lettuce.core.cluster.SlotHash.getSlot(storedAs + key);
            if (slot >= first && slot <= last) {
                return key;
            }
        }
    }

    /** Runs redis-cli as the admin in cluster mode (following redirects), from the first node. */
    public String cli(String... args) {
        List<String> command = new ArrayList<>(List.of("-c"));
        command.addAll(List.of(args));
        return nodes.get(0).cli(command.toArray(String[]::new));
    }

    /**
     * Cuts a node off from the rest, both ways, as a network partition would, while its clients
     * still reach it: its cluster bus links dropped (no gossip, no votes), and no replica may
     * replicate from it (its {@code default} user, the one replicas authenticate as, loses
     * {@code PSYNC}, {@code SYNC} and {@code REPLCONF}, and its replicas' links are closed).
     *
     * @param node a node of a {@linkplain #partitionable partitionable} cluster
     */
    public void isolate(RedisServer node) {
        bus().isolate(node.port);
        node.cli("ACL", "SETUSER", "default", "-psync", "-sync", "-replconf");
        node.cli("CLIENT", "KILL", "TYPE", "replica");
    }

    /**
     * Ends {@link #isolate}: replicas may replicate from the node again, and its bus links are made
     * again (the partitions merge; a master replaced meanwhile becomes the new one's replica).
     *
     * @param node the node cut off
     */
    public void heal(RedisServer node) {
        node.cli("ACL", "SETUSER", "default", "+psync", "+sync", "+replconf");
        bus().heal(node.port);
    }

    private ClusterBus bus() {
        if (bus == null) {
            throw new IllegalStateException("started without the proxied bus: use RedisCluster.partitionable");
        }
        return bus;
    }

    @Override
    public void close() {
        for (RedisServer node : nodes) {
            node.close();
        }
        if (bus != null) {
            bus.close();
        }
    }
}
