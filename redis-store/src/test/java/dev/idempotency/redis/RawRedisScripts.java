package dev.idempotency.redis;

/**
 * The raw baselines' Lua, one copy for the store-level benchmark ({@code RedisStoreBenchmark}) and
 * the HTTP benchmark's floor ({@link RawRedisResource}): what an owner-safe completion cannot do
 * without, and nothing of the store's record format.
 */
public final class RawRedisScripts {

    /** The raw completion: owner-checked on the first bytes of the claim (the owner token), then the answer for the ttl. */
    public static final String COMPLETE = """
            local v = redis.call('GET', KEYS[1])
            if v and string.sub(v, 1, #ARGV[1]) == ARGV[1] then
              redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[2])
              return 1
            end
            return 0
            """;

    private RawRedisScripts() {
    }
}
