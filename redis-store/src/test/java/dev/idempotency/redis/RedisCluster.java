package dev.idempotency.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A Redis Cluster of real servers: 3 masters and 3 replicas on six loopback ports, ACL as {@link RedisServer}. */
public final class RedisCluster implements AutoCloseable {

    public final List<RedisServer> nodes = new ArrayList<>();

    public static RedisCluster start(String name, int firstPort) throws Exception {
        RedisCluster cluster = new RedisCluster();
        try {
            for (int i = 0; i < 6; i++) {
                cluster.nodes.add(RedisServer.start(name + "-" + (i + 1), firstPort + i, "--cluster-enabled", "yes",
                        "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000",
                        // a replica's full sync starts at once, not after the default 5 s wait for more replicas
                        "--repl-diskless-sync-delay", "0"));
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
            for (RedisServer node : cluster.nodes) {
                node.await("cluster_state:ok with 6 known nodes", Duration.ofSeconds(30), () -> {
                    String info = node.cli("CLUSTER", "INFO");
                    return info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:6");
                });
            }
            for (RedisServer node : cluster.nodes) {
                node.await("replication settled", Duration.ofSeconds(30), () -> {
                    String replication = node.cli("INFO", "replication");
                    return replication.contains("role:master") ? replication.contains("connected_slaves:1")
                            : replication.contains("master_link_status:up");
                });
            }
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** @return the seeds the store is given: two of the masters */
    public String uris() {
        return nodes.get(0).uri() + "," + nodes.get(1).uri();
    }

    /** @return the masters, as they are now */
    public List<RedisServer> masters() {
        return nodes.stream().filter(node -> node.cli("ROLE").startsWith("master")).toList();
    }

    /** Runs redis-cli as the admin in cluster mode (following redirects), from the first node. */
    public String cli(String... args) {
        List<String> command = new ArrayList<>(List.of("-c"));
        command.addAll(List.of(args));
        return nodes.get(0).cli(command.toArray(String[]::new));
    }

    @Override
    public void close() {
        for (RedisServer node : nodes) {
            node.close();
        }
    }
}
