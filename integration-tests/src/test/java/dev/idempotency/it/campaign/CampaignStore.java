package dev.idempotency.it.campaign;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import org.jboss.shrinkwrap.api.spec.WebArchive;

import dev.idempotency.it.campaign.HistoryChecker.Rule;
import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.PostgreSqlDataSource;

/**
 * A store under a fault campaign: the sample app on it (one deployment of its own on every node),
 * the servers it runs on (whose faults the nemesis injects), the payments database the checker
 * reads, and the windows its page in docs/stores admits.
 *
 * @param name its name in the report
 * @param contextRoot the context root of its deployment, also the start of its order ids
 * @param app the sample app on this store, named after the context root, given the campaign's
 *     MicroProfile Config
 * @param resources the servers it runs on; stores may share them
 * @param windows the rules it may break, each with the kinds of fault during which it may: what
 *     its page in docs/stores states as a window (none, ideally)
 * @param lingering the rules it may break, each with the kinds of fault after which it may for the
 *     rest of the campaign, for a request it stalled on or refused once such a fault began, no
 *     other fault on: a fault whose effect its page in docs/stores states can outlast it
 * @param paymentsDatabase the JDBC URL of its payments database
 */
record CampaignStore(String name, String contextRoot, Function<String, WebArchive> app, List<CampaignResource> resources,
        Map<Rule, Set<String>> windows, Map<Rule, Set<String>> lingering, String paymentsDatabase) {

    /**
     * The JPA store: the records and the payments in one PostgreSQL of the campaign's own. It
     * keeps every promise but one, which docs/stores/jpa.md states as a window: a request whose
     * transaction's commit meets the database's death gets the server's own {@code 500} (the
     * commit fails in {@code @Transactional}, outside the library's interceptor); nothing
     * committed (or, if the commit went through, the retry replays it), and the retry with the
     * same key is safe.
     *
     * @param database the PostgreSQL
     * @return the store
     */
    static CampaignStore jpa(CampaignPostgreSql database) {
        return new CampaignStore("JPA on PostgreSQL", "campaign-jpa",
                config -> Deployments.sampleAppOnDatabase("campaign-jpa", config, database.jdbcUrl()), List.of(database),
                Map.of(Rule.SERVER_ERROR, Set.of(CampaignPostgreSql.KILL)), Map.of(), database.jdbcUrl());
    }

    /**
     * The Redis store on one server; the payments in this machine's PostgreSQL. The store cannot
     * join the payment's transaction: its documented window, a node killed between the executed
     * mark and the commit (a {@code 410 response-lost} for a payment that never committed), is
     * counted, not failed. So is the server killed after it wrote a mark but before its answer came
     * back, as docs/stores/redis.md states it: the release after the rollback is tried again until
     * the server is back (since stop 33, whose seed 3590003900354336496 found it never tried
     * again), but a retry after the mark's lease (3 s here) and before that release is told
     * {@code 410} (stop 46, seed -2466160628584926620: Redis killed at 57.1 s, back at 58.7 s, the
     * release's next try due at about 61.9 s, the retry at 60.2 s). Since stop 47 a retry on the
     * node that holds the pending release has it tried at once; one on the other node still waits.
     *
     * @param redis the Redis server
     * @return the store
     */
    static CampaignStore redis(CampaignRedis redis) {
        return new CampaignStore("Redis (append-only, fsync always)", "campaign-redis",
                config -> Deployments.sampleAppOnRedis("campaign-redis", config, redis.settings()), List.of(redis),
                Map.of(Rule.LOST_WITHOUT_ROW, Set.of(CampaignNode.KILL, CampaignRedis.KILL)), Map.of(),
                PostgreSqlDataSource.URL);
    }

    /**
     * The Redis store on a Redis Cluster of three masters and three replicas, waiting for a
     * replica on every write; the payments in this machine's PostgreSQL. With {@code
     * wait-replicas=1} a failover loses no claim (docs/stores/redis.md); its one window is the
     * single server's, the executed mark outside the payment's transaction, which a master's
     * death or freeze opened too before failed releases were retried: a mark that reached the
     * master (and its replica) but whose {@code WAIT} failed with it fails the payment, which rolls
     * back, and the release after the rollback found the master's connection down, so the mark
     * stayed ({@code 410} without a row); it stays admitted until runs show the retried release
     * closes it on a cluster too.
     * A master cut off opens it more rarely (not yet seen): writes it takes alone fail their
     * {@code WAIT} and are dropped at the heal, and the release reaches it; only a mark that
     * reached the replica as the cut came, its acknowledgement lost, stays on the promoted one.
     *
     * @param cluster the Redis Cluster
     * @return the store
     */
    static CampaignStore redisCluster(CampaignRedisCluster cluster) {
        return new CampaignStore("Redis Cluster (3 masters, 3 replicas, wait-replicas=1)", "campaign-redis-cluster",
                config -> Deployments.sampleAppOnRedis("campaign-redis-cluster", config, cluster.settings()),
                List.of(cluster), Map.of(Rule.LOST_WITHOUT_ROW,
                        Set.of(CampaignNode.KILL, CampaignRedisCluster.KILL, CampaignRedisCluster.FREEZE,
                                CampaignRedisCluster.PARTITION)),
                Map.of(), PostgreSqlDataSource.URL);
    }

    /**
     * The Infinispan store on a three-node cluster; the payments in this machine's PostgreSQL.
     * Its windows, as docs/stores/infinispan.md states them: the executed mark outside the
     * payment's transaction (a node killed between the two, or a cluster node's fault that fails
     * the payment after its mark and refuses the release: {@code 410} without a row, seen once
     * during a partition), and a
     * write in flight on a cluster node as it is cut off (or frozen until the others drop it),
     * applied there alone and lost at the merge: the key's claim reads in progress again, and
     * after the lease a retry runs it a second time; and a key in flight as a cluster node was
     * killed (seen once; or cut off, or frozen) whose lock the survivors still held minutes
     * later: every request with it fails closed (the Hot Rod timeout, then {@code 503}), so it
     * gets no definitive answer; and a completed record gone after a cluster node's kill, cut or
     * freeze (seen once, cause not established): a later reuse of the key with another body
     * found it free and ran (a retry with the first body would run again too, but the campaign's
     * clients stop at the first {@code 2xx}).
     * A Payara node frozen mid-mark is no window: its mark's answer, lost to the client's timeout
     * as it woke, is asked for again, and the store counts its own mark when the client's second
     * attempt of it is refused; the payment commits ({@code 410} without a row at a node freeze
     * failed the campaign at stop 34, seed 2433059373875054812, before it was).
     * A key's lock leaked by a server-side transaction after a node's kill (lingering: seen once,
     * stop 52, seed -6872573657759876803, on a key first used 32 s after the cluster was whole
     * again) stalls every write to that key past the Hot Rod timeout: its executed mark lands with
     * its answer lost, the payment fails and rolls back, its release cannot be written, and its
     * retries get no answer in time or {@code 503}, then {@code 410} without a row, or, where the
     * lock outlives the campaign, no definitive answer at all (seen at stop 53, seed
     * -7319388452239600654: a key first sent after the kill, with no fault on, stalled on every
     * attempt to the end; and in this stop's next CI, seed -1987400641137407683, a fresh key after
     * a partition or freeze: 410 without a row); all admitted after an Infinispan node's kill, cut
     * or freeze, for a request that the store stalled on or refused with no Payara node's fault on.
     *
     * @param cluster the cluster
     * @return the store
     */
    static CampaignStore infinispan(CampaignInfinispan cluster) {
        Set<String> splits = Set.of(CampaignInfinispan.PARTITION, CampaignInfinispan.FREEZE);
        Set<String> nodeFaults = Set.of(CampaignInfinispan.KILL, CampaignInfinispan.PARTITION, CampaignInfinispan.FREEZE);
        return new CampaignStore("Infinispan, three nodes", "campaign-infinispan",
                config -> Deployments.sampleAppOnInfinispan("campaign-infinispan", config,
                        cluster.clientProperties("idempotency")),
                List.of(cluster), Map.of(Rule.LOST_WITHOUT_ROW, Set.of(CampaignNode.KILL, CampaignInfinispan.KILL,
                        CampaignInfinispan.PARTITION, CampaignInfinispan.FREEZE), Rule.EXECUTED_TWICE, splits,
                        Rule.DIFFERENT_ANSWERS, splits, Rule.UNRESOLVED, nodeFaults, Rule.REUSED_BODY_RAN, nodeFaults),
                Map.of(Rule.LOST_WITHOUT_ROW, nodeFaults, Rule.UNRESOLVED, nodeFaults),
                PostgreSqlDataSource.URL);
    }

    /**
     * The tiered store: the Infinispan cluster in front, the JPA store behind on the campaign's
     * PostgreSQL, with the payments. The database decides every claim and its records commit
     * with the payments, so no fault of the cluster may break a promise (docs/stores/tiered.md);
     * it shares the JPA store's one window, the server's {@code 500} for a commit that meets the
     * database's death.
     *
     * @param cluster the Infinispan cluster in front
     * @param database the PostgreSQL behind
     * @return the store
     */
    static CampaignStore tiered(CampaignInfinispan cluster, CampaignPostgreSql database) {
        return new CampaignStore("tiered: Infinispan in front of JPA", "campaign-tiered",
                config -> Deployments.sampleAppOnTieredStoreOnDatabase("campaign-tiered", config,
                        cluster.clientProperties("idempotency-tiered"), database.jdbcUrl()),
                List.of(cluster, database), Map.of(Rule.SERVER_ERROR, Set.of(CampaignPostgreSql.KILL)), Map.of(), database.jdbcUrl());
    }
}
