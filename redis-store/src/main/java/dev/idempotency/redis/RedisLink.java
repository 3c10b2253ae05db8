package dev.idempotency.redis;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;

import dev.idempotency.spi.IdempotencyStoreException;

/**
 * One open connection (a single node, or a Redis Cluster with one connection per node) and the
 * rules for talking over it: each call waits at most the timeout, {@code NOSCRIPT} is answered by
 * running the script's text once on the same key, and {@code WAIT} goes over the very connection
 * that carried the write it waits for.
 */
final class RedisLink implements AutoCloseable {

    private final StatefulConnection<byte[], byte[]> connection;
    private final StatefulRedisClusterConnection<byte[], byte[]> cluster;
    private final RedisClusterAsyncCommands<byte[], byte[]> routed;
    private final Duration timeout;

    /**
     * @param connection a single node's connection
     * @param timeout how long a call may take
     */
    RedisLink(StatefulRedisConnection<byte[], byte[]> connection, Duration timeout) {
        this.connection = connection;
        this.cluster = null;
        this.routed = connection.async();
        this.timeout = timeout;
    }

    /**
     * @param cluster a Redis Cluster connection
     * @param timeout how long a call may take
     */
    RedisLink(StatefulRedisClusterConnection<byte[], byte[]> cluster, Duration timeout) {
        this.connection = cluster;
        this.cluster = cluster;
        this.routed = cluster.async();
        this.timeout = timeout;
    }

    /** @return whether this is a Redis Cluster */
    boolean isCluster() {
        return cluster != null;
    }

    /** @return whether the client still holds the connection (it reconnects by itself while open) */
    boolean isOpen() {
        return connection.isOpen();
    }

    /**
     * @param key the record's key
     * @param thenWait whether a {@code WAIT} will follow the write: then on a cluster the key's
     *     master's own connection, since {@code WAIT} counts the writes of the connection it is sent on
     * @return the commands to run the script (and its {@code WAIT}) on
     */
    RedisClusterAsyncCommands<byte[], byte[]> commandsFor(byte[] key, boolean thenWait) {
        if (cluster == null || !thenWait) {
            return routed;
        }
        RedisClusterNode master = cluster.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
        if (master == null) {
            throw new IdempotencyStoreException(RedisMessages.storeFailed("routing",
                    new IllegalStateException("no master known for slot " + SlotHash.getSlot(key))));
        }
        return cluster.getConnection(master.getNodeId()).async();
    }

    /** Loads every script ({@code SCRIPT LOAD}; on a cluster Lettuce's cluster API fans it out; a node without it answers NOSCRIPT, handled by {@link #run}). */
    void loadScripts() {
        for (RedisScript script : RedisScript.values()) {
            String sha = await(routed.scriptLoad(script.source()), "SCRIPT LOAD", timeout);
            if (!script.sha().equalsIgnoreCase(sha)) {
                throw new IdempotencyStoreException(RedisMessages.unexpectedAnswer("SCRIPT LOAD", sha));
            }
        }
    }

    /**
     * Runs a script with {@code EVALSHA}; on {@code NOSCRIPT}, with {@code EVAL} on the same key.
     *
     * @param <T> the answer's type
     * @param commands where (see {@link #commandsFor})
     * @param script the script
     * @param type its answer's shape
     * @param key its only key
     * @param args its arguments
     * @return its answer
     * @throws IdempotencyStoreException when the server fails or does not answer in time
     */
    <T> T run(RedisClusterAsyncCommands<byte[], byte[]> commands, RedisScript script, ScriptOutputType type, byte[] key,
            byte[]... args) {
        byte[][] keys = {key};
        long started = System.nanoTime();
        try {
            return await(commands.<T>evalsha(script.sha(), type, keys, args), script.operation(), timeout);
        } catch (NoScript e) {
            Duration left = timeout.minusNanos(System.nanoTime() - started);
            if (left.isNegative() || left.isZero()) {
                throw new IdempotencyStoreException(RedisMessages.timedOut(script.operation(), timeout));
            }
            return await(commands.<T>eval(script.source(), type, keys, args), script.operation(), left);
        }
    }

    /**
     * @param commands the connection that carried the write
     * @param replicas how many replicas must acknowledge it
     * @param waitTimeout how long the server may wait for them
     * @return how many did
     */
    long awaitReplicas(RedisClusterAsyncCommands<byte[], byte[]> commands, int replicas, Duration waitTimeout) {
        return await(commands.waitForReplication(replicas, waitTimeout.toMillis()), "WAIT", timeout.plus(waitTimeout));
    }

    private <T> T await(RedisFuture<T> future, String operation, Duration limit) {
        try {
            return future.get(limit.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new IdempotencyStoreException(RedisMessages.timedOut(operation, timeout), e);
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new IdempotencyStoreException(RedisMessages.interrupted(operation), e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof RedisNoScriptException
                    || (cause.getMessage() != null && cause.getMessage().startsWith("NOSCRIPT"))) {
                throw new NoScript();
            }
            throw new IdempotencyStoreException(RedisMessages.storeFailed(operation, cause), cause);
        } catch (RuntimeException e) {
            throw new IdempotencyStoreException(RedisMessages.storeFailed(operation, e), e);
        }
    }

    /** The server does not know the script (any more). */
    private static final class NoScript extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NoScript() {
            super(null, null, false, false);
        }
    }

    @Override
    public void close() {
        connection.close();
    }
}
