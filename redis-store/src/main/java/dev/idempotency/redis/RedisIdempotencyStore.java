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
import dev.idempotency.spi.StoredOutcome;

/**
 * The Redis store: keys claimed in Redis (a single node or a Redis Cluster) shared by every
 * application instance, over Lettuce. Present on the classpath, it replaces the in-memory store
 * (an {@code @Alternative} with priority {@link IdempotencyStore#STORE_MODULE_PRIORITY}).
 *
 * <p><b>One script per operation.</b> Claim, complete, markExecuted, release and find are each one
 * Lua script on one key ({@link RedisScript}), one round trip, atomic on the server. The claim is
 * a script too, not {@code SET key record NX PX lease GET}: the SPI needs the record to outlive
 * its lease (the key stays bound to its fingerprint for the retention; after the lease only the
 * same fingerprint takes it over; an executed record turns OUTCOME_LOST when its lease ran out),
 * and a key expiring with the lease would forget all that, while a key kept for the retention
 * needs the lease judged inside the server, against {@code TIME}, which only a script can do in
 * the same round trip. Every deadline and expiry is the Redis server's clock ({@code TIME} in the
 * script, {@code PXAT} from it), never an application node's.
 *
 * <p><b>Records</b> are one binary string value ({@link RedisRecordFormat}) under
 * {@code <key-prefix><key>}: one key per record, so one hash slot on a cluster, and no script
 * touches two keys. Completed records live for their retention and are never deleted early;
 * only their owner's release deletes a record, and only while in progress or executed.
 *
 * <p><b>Replicas.</b> With {@code idempotency.redis.wait-replicas} above 0, a claim, a mark and a
 * completion run on a connection of their own (a small pool that never reconnects) and, when they
 * wrote, are followed by {@code WAIT n wait-timeout} on it; fewer acknowledgements, or no answer,
 * fail closed ({@link dev.idempotency.spi.IdempotencyStoreException}), a claim being given back first.
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
}
