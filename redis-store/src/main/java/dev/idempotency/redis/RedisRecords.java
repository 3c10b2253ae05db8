package dev.idempotency.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.StoredOutcome;

/**
 * The store's operations over a {@link RedisLink}: each one script, one round trip, on the key
 * {@code <key-prefix><key>}; with {@code wait-replicas} above 0, a claim, a mark and a completion
 * that wrote are followed by {@code WAIT} on the same connection, and fail closed when too few
 * replicas acknowledge them (a claim is then given back first).
 */
final class RedisRecords {

    private static final Logger LOG = Logger.getLogger(RedisRecords.class.getName());
    /** Expiries beyond this (about 31 years) are cut to it: the server's clock plus it must stay a Lua integer. */
    private static final long MAX_MILLIS = 1_000_000_000_000L;

    private final RedisLink link;
    private final String prefix;
    private final int waitReplicas;
    private final Duration waitTimeout;

    RedisRecords(RedisLink link, RedisSettings settings) {
        this.link = link;
        this.prefix = settings.keyPrefix();
        this.waitReplicas = settings.waitReplicas();
        this.waitTimeout = settings.waitTimeout();
    }

    /** @return whether the connection is still held (closed ones are opened again) */
    boolean isOpen() {
        return link.isOpen();
    }

    ClaimResult claim(String key, String fingerprint, Duration lease, Duration retention) {
        byte[] fp = bytes(fingerprint);
        RedisRecordFormat.checked("fingerprint", fp.length, RedisRecordFormat.MAX_FINGERPRINT);
        String owner = UUID.randomUUID().toString();
        byte[] redisKey = redisKey(key);
        RedisClusterAsyncCommands<byte[], byte[]> commands = link.commandsFor(redisKey, waitReplicas > 0);
        List<Object> answer = link.run(commands, RedisScript.CLAIM, ScriptOutputType.MULTI, redisKey, fp, bytes(owner),
                millis(lease), millis(lease.compareTo(retention) > 0 ? lease : retention));
        if (answer == null || answer.size() != 3 || !(answer.get(0) instanceof Long acquired)
                || !(answer.get(1) instanceof Long now)) {
            throw new IdempotencyStoreException(RedisMessages.unexpectedAnswer("claim", answer));
        }
        if (acquired == 0) {
            if (!(answer.get(2) instanceof byte[] value)) {
                throw new IdempotencyStoreException(RedisMessages.unexpectedAnswer("claim", answer));
            }
            return new ClaimResult.Existing(RedisRecordFormat.read(key, value, now));
        }
        requireReplicas(commands, "claim", () -> release(key, owner));
        return new ClaimResult.Acquired(owner, Long.valueOf(1).equals(answer.get(2)));
    }

    boolean complete(String key, String owner, StoredOutcome outcome, Duration retention) {
        byte[] redisKey = redisKey(key);
        RedisClusterAsyncCommands<byte[], byte[]> commands = link.commandsFor(redisKey, waitReplicas > 0);
        boolean done = changed("complete", link.run(commands, RedisScript.COMPLETE, ScriptOutputType.INTEGER, redisKey,
                bytes(owner), millis(retention), RedisRecordFormat.outcome(outcome)));
        if (done) {
            requireReplicas(commands, "complete", null);
        }
        return done;
    }

    boolean markExecuted(String key, String owner, Duration lease, Duration retention) {
        byte[] redisKey = redisKey(key);
        RedisClusterAsyncCommands<byte[], byte[]> commands = link.commandsFor(redisKey, waitReplicas > 0);
        boolean done = changed("markExecuted", link.run(commands, RedisScript.MARK_EXECUTED, ScriptOutputType.INTEGER,
                redisKey, bytes(owner), millis(lease), millis(retention)));
        if (done) {
            requireReplicas(commands, "markExecuted", null);
        }
        return done;
    }

    boolean release(String key, String owner) {
        byte[] redisKey = redisKey(key);
        return changed("release", link.run(link.commandsFor(redisKey, false), RedisScript.RELEASE,
                ScriptOutputType.INTEGER, redisKey, bytes(owner)));
    }

    Optional<IdempotencyRecord> find(String key) {
        byte[] redisKey = redisKey(key);
        List<Object> answer = link.run(link.commandsFor(redisKey, false), RedisScript.FIND, ScriptOutputType.MULTI,
                redisKey);
        if (answer == null || answer.isEmpty() || !(answer.get(0) instanceof Long now)) {
            throw new IdempotencyStoreException(RedisMessages.unexpectedAnswer("find", answer));
        }
        if (answer.size() < 2 || answer.get(1) == null) {
            return Optional.empty();
        }
        if (!(answer.get(1) instanceof byte[] value)) {
            throw new IdempotencyStoreException(RedisMessages.unexpectedAnswer("find", answer));
        }
        return Optional.of(RedisRecordFormat.read(key, value, now));
    }

    /**
     * After a write: {@code WAIT} for the replicas, if asked to.
     *
     * @param undo what gives the write back when too few acknowledge it ({@code null}: nothing)
     * @throws IdempotencyStoreException when fewer replicas than asked acknowledged it
     */
    private void requireReplicas(RedisClusterAsyncCommands<byte[], byte[]> commands, String operation, Runnable undo) {
        if (waitReplicas == 0) {
            return;
        }
        long acknowledged = link.awaitReplicas(commands, waitReplicas, waitTimeout);
        if (acknowledged >= waitReplicas) {
            return;
        }
        boolean undone = false;
        if (undo != null) {
            try {
                undo.run();
                undone = true;
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "giving back the claim failed too; it lapses with its lease", e);
            }
        }
        throw new IdempotencyStoreException(RedisMessages.tooFewReplicas(operation, acknowledged, waitReplicas,
                waitTimeout, undone));
    }

    private static boolean changed(String operation, Object answer) {
        if (answer instanceof Long changed && (changed == 0 || changed == 1)) {
            return changed == 1;
        }
        throw new IdempotencyStoreException(RedisMessages.unexpectedAnswer(operation, answer));
    }

    private byte[] redisKey(String key) {
        return bytes(prefix + key);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] millis(Duration duration) {
        long millis;
        try {
            millis = duration.toMillis();
        } catch (ArithmeticException e) {
            millis = MAX_MILLIS;
        }
        return bytes(Long.toString(Math.max(1, Math.min(MAX_MILLIS, millis))));
    }
}
