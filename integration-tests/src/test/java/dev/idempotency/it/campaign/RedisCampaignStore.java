package dev.idempotency.it.campaign;

import java.util.List;
import java.util.Set;

import org.jboss.shrinkwrap.api.spec.WebArchive;

import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.PostgreSqlDataSource;
import dev.idempotency.redis.RedisServer;
import dev.idempotency.testing.ChildProcess;

/**
 * The Redis store in a campaign: one {@code redis-server} of the campaign's own with an
 * append-only file written through at every write ({@code appendfsync always}, which
 * docs/stores/redis.md names as what lets a claim survive a crash), which the nemesis kills
 * ({@code kill -9}, started again on its file) and freezes ({@code SIGSTOP}); the payments in
 * this machine's PostgreSQL. The store cannot join the payment's transaction: its documented
 * window, a node stopped between the executed mark and the commit (a {@code 410 response-lost}
 * for a payment that never committed), is counted, not failed.
 */
final class RedisCampaignStore implements CampaignStore {

    private final RedisServer redis;

    RedisCampaignStore() throws Exception {
        redis = RedisServer.start("campaign", ChildProcess.freePort(), "--appendonly", "yes", "--appendfsync", "always");
    }

    @Override
    public String name() {
        return "Redis (append-only, fsync always)";
    }

    @Override
    public String contextRoot() {
        return "campaign-redis";
    }

    @Override
    public WebArchive app(String config) {
        return Deployments.sampleAppOnRedis(contextRoot(), config, redis.settings());
    }

    @Override
    public List<Nemesis.Fault> faults() {
        return List.of(CampaignStore.fault("kill -9 Redis", 300, 2000, redis::kill, redis::start),
                CampaignStore.fault("SIGSTOP Redis", 1000, 5000, () -> redis.signal("STOP"), () -> redis.signal("CONT")));
    }

    @Override
    public Set<HistoryChecker.Rule> admittedWindows() {
        return Set.of(HistoryChecker.Rule.LOST_WITHOUT_ROW);
    }

    @Override
    public String paymentsDatabase() {
        return PostgreSqlDataSource.URL;
    }

    @Override
    public void close() throws Exception {
        redis.stop();
    }
}
