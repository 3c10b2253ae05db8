package dev.idempotency.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;

import dev.idempotency.spi.IdempotencyStoreException;

/**
 * The connections of the waited writes ({@code wait-replicas} above 0): a small pool of
 * {@value #SIZE}, each used by one call at a time for its script and its {@code WAIT}.
 *
 * <p>{@code WAIT} counts the writes of the connection it is sent on, and blocks that connection
 * until it answers; so each waited write gets a connection of its own (a blocked {@code WAIT}
 * holds up no other call), and its {@code WAIT} goes over the very socket that carried the write.
 * The store's own client opens these connections with auto-reconnect off: a connection that drops
 * between the script and its {@code WAIT} is closed for good, so the {@code WAIT} fails instead of
 * running on a new socket (where it would count no write and report the replicas at once). A
 * connection whose call failed in any way is closed, not reused; a new one is opened when needed.
 */
final class RedisWaitLanes implements AutoCloseable {

    /** How many waited writes may run at once on one application node. */
    static final int SIZE = 8;

    private final Supplier<CompletableFuture<? extends StatefulConnection<byte[], byte[]>>> opener;
    private final Runnable failed;
    private final Duration timeout;
    private final Semaphore permits = new Semaphore(SIZE, true);
    private final ConcurrentLinkedDeque<Lane> idle = new ConcurrentLinkedDeque<>();
    private volatile boolean closed;

    /**
     * @param opener opens one more connection: a single node's or a cluster's
     * @param failed told of every call that failed on its connection: on a cluster, it has the
     *     topology read again (a failover moves slots, and these connections follow no redirect)
     * @param timeout how long a call may wait for a free connection, and to open one
     */
    RedisWaitLanes(Supplier<CompletableFuture<? extends StatefulConnection<byte[], byte[]>>> opener, Runnable failed,
            Duration timeout) {
        this.opener = opener;
        this.failed = failed;
        this.timeout = timeout;
    }

    /**
     * @return a connection for this call only; hand it back with {@link #giveBack}
     * @throws IdempotencyStoreException when none is free within the timeout, or none can be opened
     */
    Lane borrow() {
        long started = System.nanoTime();
        try {
            if (!permits.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new IdempotencyStoreException(RedisMessages.timedOut("a free connection for waited writes",
                        timeout));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IdempotencyStoreException(RedisMessages.interrupted("a free connection for waited writes"), e);
        }
        try {
            if (closed) {
                throw new IdempotencyStoreException(RedisMessages.closed());
            }
            for (Lane lane = idle.pollFirst(); lane != null; lane = idle.pollFirst()) {
                if (lane.usable()) {
                    return lane;
                }
                lane.close();
            }
            Duration left = timeout.minusNanos(System.nanoTime() - started);
            CompletableFuture<? extends StatefulConnection<byte[], byte[]>> opening = opener.get();
            return new Lane(RedisLink.awaitStep(opening, "connect", left, timeout, StatefulConnection::closeAsync,
                    cause -> RedisMessages.cannotConnect("Redis (a connection for waited writes)", cause)), timeout);
        } catch (RuntimeException e) {
            permits.release();
            throw e;
        }
    }

    /**
     * @param lane a connection {@link #borrow} gave
     * @param healthy whether every command of the call was answered: else it is closed, and the
     *     failure told ({@code failed})
     */
    void giveBack(Lane lane, boolean healthy) {
        try {
            if (healthy && !closed && lane.usable()) {
                idle.offerFirst(lane);
                if (closed && idle.remove(lane)) {
                    lane.close();
                }
            } else {
                lane.close();
                if (!healthy) {
                    failed.run();
                }
            }
        } finally {
            permits.release();
        }
    }

    @Override
    public void close() {
        closed = true;
        for (Lane lane = idle.pollFirst(); lane != null; lane = idle.pollFirst()) {
            lane.close();
        }
    }

    /** One connection of the pool: a single node's, or a cluster's (its writes then go to the key's master's node connection). */
    static final class Lane {

        private final StatefulConnection<byte[], byte[]> connection;
        private final Duration timeout;

        Lane(StatefulConnection<byte[], byte[]> connection, Duration timeout) {
            this.connection = connection;
            this.timeout = timeout;
        }

        boolean usable() {
            return connection.isOpen();
        }

        /**
         * @param key the record's key
         * @return the commands for the script and its {@code WAIT}: on a cluster, over the key's
         *     master's own connection (a redirect on it is a failure; the next call routes anew)
         */
        @SuppressWarnings("unchecked")
        RedisClusterAsyncCommands<byte[], byte[]> commandsFor(byte[] key) {
            if (connection instanceof StatefulRedisConnection<?, ?> single) {
                return ((StatefulRedisConnection<byte[], byte[]>) single).async();
            }
            StatefulRedisClusterConnection<byte[], byte[]> cluster = (StatefulRedisClusterConnection<byte[], byte[]>) connection;
            RedisClusterNode master = cluster.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
            if (master == null) {
                throw new IdempotencyStoreException(RedisMessages.storeFailed("routing",
                        new IllegalStateException("no master known for slot " + SlotHash.getSlot(key))));
            }
            StatefulRedisConnection<byte[], byte[]> node = RedisLink.awaitStep(
                    cluster.getConnectionAsync(master.getNodeId()), "connect", timeout, timeout, shared -> {
                    }, cause -> RedisMessages.cannotConnect("the key's master " + master.getUri(), cause));
            if (!node.isOpen()) {
                throw new IdempotencyStoreException(RedisMessages.storeFailed("routing",
                        new IllegalStateException("the connection to the key's master is down")));
            }
            return node.async();
        }

        void close() {
            connection.closeAsync();
        }
    }
}
