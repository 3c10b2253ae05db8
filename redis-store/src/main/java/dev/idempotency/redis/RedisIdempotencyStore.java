package dev.idempotency.redis;

import java.time.Duration;
import java.util.Optional;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Inject;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.RecordDetails;
import dev.idempotency.spi.StoredOutcome;

/**
 * The Redis store: keys claimed in Redis (a single node or a Redis Cluster) shared by every
 * application instance, over Lettuce. Present on the classpath, it replaces the in-memory store
 * (an {@code @Alternative} with priority {@link IdempotencyStore#STORE_MODULE_PRIORITY}).
 *
 * <p><b>One command per operation.</b> A claim is one plain {@code SET key record NX PX kept GET}
 * (kept: the larger of lease and retention): a free key is claimed, and a completed record or
 * another request's claim is answered from the value it returns. Only a claim of this very
 * request (its lease decides: in progress, or taken over) and an executed record (the server's
 * clock decides whether its outcome is lost) need the claim script, a second round trip. Complete,
 * markExecuted and release are each one Lua script on one key ({@link RedisScript}), find a plain
 * {@code GET}. The key outlives the lease (it stays bound to its fingerprint for the retention;
 * after the lease only the same fingerprint takes it over), so the lease is judged apart, inside
 * the server: the claim's record holds how long before its expiry the lease ends, and the scripts
 * read the server's {@code TIME} and the key's {@code PTTL}. Every deadline and expiry is the
 * Redis server's clock, never an application node's.
 *
 * <p><b>Records</b> are one binary string value ({@link RedisRecordFormat}) under
 * {@code <key-prefix><key>}: one key per record, so one hash slot on a cluster, and no script
 * touches two keys. Completed records live for their retention and are never deleted early;
 * only their owner's release deletes a record, and only while in progress or executed.
 *
 * <p><b>Replicas.</b> With {@code idempotency.redis.wait-replicas} above 0, a claim, a mark and a
 * completion run on a connection of their own (a small pool that never reconnects) and, when they
 * wrote, are followed by {@code WAIT n wait-timeout} on it; fewer acknowledgements, or no answer,
 * fail closed ({@link dev.idempotency.spi.IdempotencyStoreException}), a claim being given back first
 * (a new claim deleted; a takeover left bound to its fingerprint, in progress with its lease over, as
 * the key was bound before it).
 * Redis replication stays asynchronous: a failover can still lose a write that {@code WAIT}
 * reported acknowledged by fewer replicas than the new master has, or one acknowledged before the
 * promoted replica had it; see {@code docs/stores/redis.md}.
 *
 * <p><b>Eviction.</b> A Redis whose {@code maxmemory-policy} is not {@code noeviction} could evict
 * live records: it is refused ({@code IDEMP0831}, every call fails closed) unless
 * {@code idempotency.redis.allow-eviction=true}.
 *
 * <p><b>Failures.</b> Redis down, a timeout ({@code idempotency.redis.timeout}) or an error answer
 * throw {@link dev.idempotency.spi.IdempotencyStoreException}; no command waits longer than the
 * timeout (plus {@code wait-timeout} for a {@code WAIT}), and while another call connects a call
 * fails at once. After the application stopped, every call fails.
 */
@Alternative
@Priority(IdempotencyStore.STORE_MODULE_PRIORITY)
@ApplicationScoped
public class RedisIdempotencyStore implements IdempotencyStore {

    @Inject
    RedisConnection connection;

    /** For CDI. */
    public RedisIdempotencyStore() {
    }

    /**
     * Outside a container (tests, tools).
     *
     * @param connection the store's connection
     */
    public RedisIdempotencyStore(RedisConnection connection) {
        this.connection = connection;
    }

    @Override
    public ClaimResult claim(String key, String fingerprint, Duration lease, Duration retention) {
        return connection.records().claim(key, fingerprint, lease, retention);
    }

    @Override
    public boolean complete(String key, String owner, StoredOutcome outcome, Duration retention) {
        return connection.records().complete(key, owner, outcome, retention);
    }

    @Override
    public boolean markExecuted(String key, String owner, Duration lease, Duration retention) {
        return connection.records().markExecuted(key, owner, lease, retention);
    }

    @Override
    public boolean release(String key, String owner) {
        return connection.records().release(key, owner);
    }

    @Override
    public Optional<IdempotencyRecord> find(String key) {
        return connection.records().find(key);
    }

    @Override
    public Optional<RecordDetails> inspect(String key) {
        return connection.records().inspect(key);
    }
}
