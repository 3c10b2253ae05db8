package dev.idempotency.it.campaign;

import java.util.List;
import java.util.Map;

import dev.idempotency.redis.RedisCluster;
import dev.idempotency.redis.RedisServer;

/**
 * A Redis Cluster of the campaign's own: three masters and three replicas on loopback (node
 * timeout 2 s), the store waiting for one replica on every write ({@code wait-replicas=1}, what
 * docs/stores/redis.md names as what keeps a failover from losing a claim). The nemesis kills a
 * master ({@code kill -9}; a replica is promoted, and the killed node is started again on its
 * {@code nodes.conf} and comes back as that one's replica) and freezes one ({@code SIGSTOP} for 1
 * to 5 s: past the node timeout its replica may be promoted meanwhile) and cuts one off ({@link
 * RedisCluster#isolate}: no cluster bus links, no replication, while the Payara nodes still reach
 * it, for 2 to 8 s; past the node timeout the majority promotes its replica, and at the heal the
 * old master rejoins as that one's replica, dropping what it took alone). Each heals once every
 * master has its replica again.
 */
final class CampaignRedisCluster implements CampaignResource {

    static final String KILL = "kill -9 Redis Cluster master";
    static final String FREEZE = "SIGSTOP Redis Cluster master";
    static final String PARTITION = "partition Redis Cluster master";
    /** Ports of its own, away from {@code RedisClusterFailoverIT}'s (each with its bus port, + 10000). */
    private static final int FIRST_PORT = 7361;

    private final RedisCluster cluster;
    private final List<Nemesis.Fault> faults;

    CampaignRedisCluster() throws Exception {
        cluster = RedisCluster.partitionable("campaign-cluster", FIRST_PORT);
        faults = List.of(Nemesis.fault(KILL, random -> {
            RedisServer victim = master(random);
            victim.signal("KILL");
            return () -> {
                long killed = System.nanoTime();
                cluster.awaitPromotedInsteadOf(victim);
                long promoted = System.nanoTime();
                victim.stop();
                victim.rejoin();
                cluster.awaitReplicaAgain(victim);
                cluster.awaitSettled();
                return "port " + victim.port + ": replica promoted in " + (promoted - killed) / 1_000_000
                        + " ms, back as a replica " + (System.nanoTime() - promoted) / 1_000_000 + " ms later";
            };
        }), Nemesis.fault(FREEZE, random -> {
            RedisServer victim = master(random);
            long holdMs = 1000 + random.nextInt(4000);
            victim.signal("STOP");
            return () -> {
                Nemesis.hold(holdMs, () -> victim.signal("CONT"));
                cluster.awaitSettled();
                boolean replaced = !victim.cli("ROLE").startsWith("master");
                return "port " + victim.port + " frozen " + holdMs + " ms" + (replaced ? ", a replica promoted meanwhile" : "");
            };
        }), Nemesis.fault(PARTITION, random -> {
            RedisServer victim = master(random);
            long holdMs = 2000 + random.nextInt(6000);
            cluster.isolate(victim);
            return () -> {
                Nemesis.hold(holdMs, () -> cluster.heal(victim));
                cluster.awaitSettled();
                boolean replaced = !victim.cli("ROLE").startsWith("master");
                return "port " + victim.port + " cut off " + holdMs + " ms" + (replaced ? ", its replica promoted" : "");
            };
        }));
    }

    private RedisServer master(java.util.Random random) {
        List<RedisServer> masters = cluster.masters();
        return masters.get(random.nextInt(masters.size()));
    }

    /** @return the store's settings: two seeds, its ACL user, one replica to wait for */
    Map<String, String> settings() {
        return Map.of("idempotency.redis.uri", cluster.uris(), "idempotency.redis.user", RedisServer.USER,
                "idempotency.redis.password", RedisServer.PASSWORD, "idempotency.redis.wait-replicas", "1");
    }

    @Override
    public List<Nemesis.Fault> faults() {
        return faults;
    }

    @Override
    public void close() {
        cluster.close();
    }
}
