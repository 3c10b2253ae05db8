package dev.idempotency.it.campaign;

import java.util.List;
import java.util.Map;

import dev.idempotency.redis.RedisServer;
import dev.idempotency.testing.ChildProcess;

/**
 * One {@code redis-server} of the campaign's own with an append-only file written through at
 * every write ({@code appendfsync always}, which docs/stores/redis.md names as what lets a claim
 * survive a crash), which the nemesis kills ({@code kill -9}, started again on its file) and
 * freezes ({@code SIGSTOP}).
 */
final class CampaignRedis implements CampaignResource {

    static final String KILL = "kill -9 Redis";

    private final RedisServer redis;
    private final List<Nemesis.Fault> faults;

    CampaignRedis() throws Exception {
        redis = RedisServer.start("campaign", ChildProcess.freePort(), "--appendonly", "yes", "--appendfsync", "always");
        faults = List.of(Nemesis.held(KILL, 300, 2000, redis::kill, redis::start),
                Nemesis.held("SIGSTOP Redis", 1000, 5000, () -> redis.signal("STOP"), () -> redis.signal("CONT")));
    }

    /** @return the store's settings ({@code idempotency.redis.*}) for it */
    Map<String, String> settings() {
        return redis.settings();
    }

    @Override
    public List<Nemesis.Fault> faults() {
        return faults;
    }

    @Override
    public void close() {
        redis.close();
    }
}
