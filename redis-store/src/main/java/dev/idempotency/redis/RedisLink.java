package dev.idempotency.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;

import dev.idempotency.spi.IdempotencyStoreException;

/**
 * The store's shared connection (a single node, or a Redis Cluster with one connection per node)
 * and the rules for talking to Redis: each call waits at most the timeout, and {@code NOSCRIPT} is
 * answered by running the script's text once on the same key. Lettuce reconnects this connection by
 * itself; it counts as dead only once closed (or, on a client that does not reconnect, once down).
 * Waited writes do not use it: see {@link RedisWaitLanes}.
 */
final class RedisLink implements AutoCloseable {

    /** What {@code INFO memory} reports when eviction cannot happen. */
    static final String NO_EVICTION = "noeviction";

    private final StatefulConnection<byte[], byte[]> connection;
    private final RedisChannelHandler<?, ?> handler;
    private final boolean reconnects;
    private final StatefulRedisClusterConnection<byte[], byte[]> cluster;
    private final RedisClusterAsyncCommands<byte[], byte[]> routed;
    private final Duration timeout;

    /**
     * @param connection a single node's connection
     * @param timeout how long a call may take
     */
    RedisLink(StatefulRedisConnection<byte[], byte[]> connection, Duration timeout) {
        this(connection, null, connection.async(), timeout);
    }

    /**
     * @param cluster a Redis Cluster connection
     * @param timeout how long a call may take
     */
    RedisLink(StatefulRedisClusterConnection<byte[], byte[]> cluster, Duration timeout) {
        this(cluster, cluster, cluster.async(), timeout);
    }

    private RedisLink(StatefulConnection<byte[], byte[]> connection, StatefulRedisClusterConnection<byte[], byte[]> cluster,
            RedisClusterAsyncCommands<byte[], byte[]> routed, Duration timeout) {
        this.connection = connection;
        this.handler = connection instanceof RedisChannelHandler<?, ?> channel ? channel : null;
        this.reconnects = connection.getOptions().isAutoReconnect();
        this.cluster = cluster;
        this.routed = routed;
        this.timeout = timeout;
    }

    /** @return whether this is a Redis Cluster */
    boolean isCluster() {
        return cluster != null;
    }

    /**
     * @return whether the connection is gone for good: closed, or down on a client that does not
     *     reconnect. While Lettuce reconnects it is down but not dead: calls fail at once (commands
     *     are rejected while disconnected) and the connection comes back by itself.
     */
    boolean isDead() {
        if (handler != null && handler.isClosed()) {
            return true;
        }
        return !reconnects && !connection.isOpen();
    }

    /** @return the commands for a call that waits for no replica (routed by key on a cluster) */
    RedisClusterAsyncCommands<byte[], byte[]> commands() {
        return routed;
    }

    /**
     * Loads every script ({@code SCRIPT LOAD}, sent together; on a cluster Lettuce's cluster API fans
     * it out; a node without them answers NOSCRIPT, handled by {@link #run}).
     *
     * @param deadline when connecting must be done
     */
    void loadScripts(Deadline deadline) {
        List<CompletableFuture<String>> loads = new ArrayList<>();
        for (RedisScript script : RedisScript.values()) {
            loads.add(routed.scriptLoad(script.source()).toCompletableFuture());
        }
        for (int i = 0; i < loads.size(); i++) {
            String sha = await(loads.get(i), "SCRIPT LOAD", deadline.left(), timeout);
            if (!RedisScript.values()[i].sha().equalsIgnoreCase(sha)) {
                throw new IdempotencyStoreException(RedisMessages.unexpectedAnswer("SCRIPT LOAD", sha));
            }
        }
    }

    /**
     * Reads {@code maxmemory_policy} from {@code INFO memory} of the server, or of every master that
     * serves slots on a cluster. An error answer (such as {@code NOPERM}) is reported as the policy
     * {@code unknown (...)}; no answer in time fails.
     *
     * @param deadline when the check must be done
     * @param server how to name a single server in messages
     * @return each master (its address) and its policy
     */
    Map<String, String> evictionPolicies(Deadline deadline, String server) {
        Map<String, CompletableFuture<String>> infos = new LinkedHashMap<>();
        if (cluster == null) {
            infos.put(server, policy(routed.info("memory")));
        } else {
            for (RedisClusterNode node : cluster.getPartitions()) {
                if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.getSlots().isEmpty()) {
                    infos.put("the master " + node.getUri().getHost() + ":" + node.getUri().getPort(),
                            cluster.getConnectionAsync(node.getNodeId())
                                    .thenCompose(master -> policy(master.async().info("memory"))));
                }
            }
        }
        Map<String, String> policies = new LinkedHashMap<>();
        infos.forEach((node, info) -> policies.put(node, awaitStep(info, "INFO memory", deadline.left(), timeout,
                late -> {
                }, cause -> RedisMessages.storeFailed("INFO memory", cause))));
        return policies;
    }

    private static CompletableFuture<String> policy(CompletionStage<String> info) {
        return info.handle((text, failure) -> {
            if (failure == null) {
                for (String line : text.split("\r?\n")) {
                    if (line.startsWith("maxmemory_policy:")) {
                        return line.substring("maxmemory_policy:".length()).trim();
                    }
                }
                return "unknown (INFO memory names no maxmemory_policy)";
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                    : failure;
            if (cause instanceof RedisCommandExecutionException refused) {
                return "unknown (INFO memory answered " + refused.getMessage() + ")";
            }
            throw failure instanceof CompletionException completion ? completion : new CompletionException(cause);
        }).toCompletableFuture();
    }

    /**
     * Runs a script with {@code EVALSHA}; on {@code NOSCRIPT}, with {@code EVAL} on the same key.
     *
     * @param <T> the answer's type
     * @param commands where: {@link #commands()}, or a waited-write connection's
     * @param script the script
     * @param type its answer's shape
     * @param key its only key
     * @param args its arguments
     * @return its answer
     * @throws IdempotencyStoreException when the server fails or does not answer in time
     */
    <T> T run(RedisClusterAsyncCommands<byte[], byte[]> commands, RedisScript script, ScriptOutputType type, byte[] key,
            byte[]... args) {
        return runWithin(timeout, commands, script, type, key, args);
    }

    /**
     * As {@link #run}, within what is left of a call's time.
     *
     * @param <T> the answer's type
     * @param limit how long it may take
     * @param commands where
     * @param script the script
     * @param type its answer's shape
     * @param key its only key
     * @param args its arguments
     * @return its answer
     * @throws IdempotencyStoreException when the server fails or does not answer within the limit
     */
    <T> T runWithin(Duration limit, RedisClusterAsyncCommands<byte[], byte[]> commands, RedisScript script,
            ScriptOutputType type, byte[] key, byte[]... args) {
        byte[][] keys = {key};
        long started = System.nanoTime();
        requireTimeLeft(limit, script);
        try {
            return await(commands.<T>evalsha(script.sha(), type, keys, args), script.operation(), limit, timeout);
        } catch (NoScript e) {
            Duration left = limit.minusNanos(System.nanoTime() - started);
            requireTimeLeft(left, script);
            return await(commands.<T>eval(script.source(), type, keys, args), script.operation(), left, timeout);
        }
    }

    /**
     * A script is not sent without time left: given up on once sent, it could still claim or take a
     * key over on the server.
     */
    private void requireTimeLeft(Duration left, RedisScript script) {
        if (left.isNegative() || left.isZero()) {
            throw new IdempotencyStoreException(RedisMessages.timedOut(script.operation(), timeout));
        }
    }

    /**
     * {@code SET key value NX PX millis GET}: writes the value where the key is free, in one command.
     *
     * @param commands where: {@link #commands()}, or a waited-write connection's
     * @param key the key
     * @param value what to write
     * @param millis how long it lives, on the server's clock
     * @return {@code null} when it was written; else the value the key holds, unchanged
     * @throws IdempotencyStoreException when the server fails or does not answer in time
     */
    byte[] setIfAbsent(RedisClusterAsyncCommands<byte[], byte[]> commands, byte[] key, byte[] value, long millis) {
        return await(commands.setGet(key, value, SetArgs.Builder.nx().px(millis)), "claim", timeout, timeout);
    }

    /**
     * @param key a key
     * @return its value, or {@code null} when there is none
     * @throws IdempotencyStoreException when the server fails or does not answer in time
     */
    byte[] get(byte[] key) {
        return await(commands().get(key), "find", timeout, timeout);
    }

    /**
     * @param commands the connection that carried the write
     * @param replicas how many replicas must acknowledge it
     * @param waitTimeout how long the server may wait for them
     * @return how many did
     */
    long awaitReplicas(RedisClusterAsyncCommands<byte[], byte[]> commands, int replicas, Duration waitTimeout) {
        return await(commands.waitForReplication(replicas, waitTimeout.toMillis()), "WAIT", timeout.plus(waitTimeout),
                timeout);
    }

    /**
     * Waits for a command's answer; gives up (and cancels the command) after the limit.
     *
     * @param <T> the answer's type
     * @param future the command
     * @param operation what it is, for messages
     * @param limit how long to wait
     * @param timeout the setting, for messages
     * @return the answer
     * @throws IdempotencyStoreException when it fails, or does not come within the limit
     */
    static <T> T await(Future<T> future, String operation, Duration limit, Duration timeout) {
        return get(future, operation, limit, timeout, () -> future.cancel(true),
                cause -> RedisMessages.storeFailed(operation, cause));
    }

    /**
     * Waits for a step of connecting (or a connection Lettuce shares, never to be cancelled); what
     * comes after the limit is handed to {@code late}.
     *
     * @param <T> the step's result
     * @param future the step
     * @param operation what it is, for messages
     * @param limit how long to wait
     * @param timeout the setting, for messages
     * @param late takes a result that comes too late (to close it)
     * @param failed the message for a step that failed, from its cause
     * @return the result
     * @throws IdempotencyStoreException when it fails, or does not come within the limit
     */
    static <T> T awaitStep(CompletableFuture<T> future, String operation, Duration limit, Duration timeout,
            Consumer<? super T> late, Function<Throwable, String> failed) {
        return get(future, operation, limit, timeout, () -> future.thenAccept(late), failed);
    }

    private static <T> T get(Future<T> future, String operation, Duration limit, Duration timeout, Runnable giveUp,
            Function<Throwable, String> failed) {
        try {
            if (limit.isNegative() || limit.isZero()) {
                throw new TimeoutException();
            }
            return future.get(limit.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            giveUp.run();
            throw new IdempotencyStoreException(RedisMessages.timedOut(operation, timeout), e);
        } catch (InterruptedException e) {
            giveUp.run();
            Thread.currentThread().interrupt();
            throw new IdempotencyStoreException(RedisMessages.interrupted(operation), e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            while (cause instanceof CompletionException && cause.getCause() != null) {
                cause = cause.getCause();
            }
            if (cause instanceof RedisNoScriptException
                    || (cause.getMessage() != null && cause.getMessage().startsWith("NOSCRIPT"))) {
                throw new NoScript();
            }
            if (cause instanceof IdempotencyStoreException coded) {
                throw coded;
            }
            throw new IdempotencyStoreException(failed.apply(cause), cause);
        } catch (CancellationException e) {
            throw new IdempotencyStoreException(RedisMessages.storeFailed(operation, e), e);
        }
    }

    /**
     * @param failure a store failure
     * @return whether the server refused the command for want of memory ({@code OOM}: a full server
     *     under {@code noeviction})
     */
    static boolean outOfMemory(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof RedisCommandExecutionException refused && refused.getMessage() != null
                    && refused.getMessage().startsWith("OOM")) {
                return true;
            }
        }
        return false;
    }

    /** The server does not know the script (any more). */
    private static final class NoScript extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NoScript() {
            super(null, null, false, false);
        }
    }

    /**
     * When a sequence of steps (connecting, checking) must be done: they share one timeout.
     *
     * @param end the {@link System#nanoTime()} it ends at
     */
    record Deadline(long end) {

        /**
         * @param limit from now
         * @return the deadline
         */
        static Deadline after(Duration limit) {
            return new Deadline(System.nanoTime() + limit.toNanos());
        }

        /** @return the time left, zero once it passed */
        Duration left() {
            long left = end - System.nanoTime();
            return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
        }
    }

    @Override
    public void close() {
        connection.close();
    }
}
