package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/**
 * {@link RedisCluster#isolate}, what the fault campaign's partition relies on: a master cut off
 * still answers its clients, but no replica acknowledges its writes; the majority promotes its
 * replica and the master, in the minority, stops taking writes; once healed it comes back as the
 * new master's replica, and what it took alone is gone.
 */
class RedisClusterPartitionTest {

    @Test
    void aMasterCutOffLosesItsSlotsToItsReplicaAndComesBackAsItsReplicaWithoutWhatItTookAlone() throws Exception {
        try (RedisCluster cluster = RedisCluster.partitionable("partition", 7371)) {
            RedisServer master = cluster.masters().get(0);
            String key = RedisCluster.keyServedBy(master, i -> "partition-" + i, "");

            cluster.isolate(master);

            assertThat(master.cli("SET", key, "alone")).as("its clients still reach it").isEqualTo("OK");
            assertThat(master.cli("WAIT", "1", "500")).as("no replica acknowledges it").isEqualTo("0");
            cluster.awaitPromotedInsteadOf(master);
            master.await("the minority refusing writes", Duration.ofSeconds(30),
                    () -> master.cli("CLUSTER", "INFO").contains("cluster_state:fail"));
            assertThat(master.cli("SET", key, "later")).as("a write in the minority").startsWith("CLUSTERDOWN");

            cluster.heal(master);
            cluster.awaitReplicaAgain(master);
            cluster.awaitSettled();

            assertThat(master.cli("ROLE")).as("back as the new master's replica").startsWith("slave");
            assertThat(cluster.cli("EXISTS", key)).as("what it took alone, lost at the merge").isEqualTo("0");
        }
    }
}
