package dev.idempotency.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.RecordDetails;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.spi.support.OwnerTokens;

/**
 * The store's operations over a {@link RedisLink}: each one command (the claim a plain {@code SET},
 * a read a plain {@code GET}, the other writes a script), one round trip, on the key
 * {@code <key-prefix><key>}. With {@code wait-replicas} above 0, a claim, a mark and a completion
 * run on a connection of their own ({@link RedisWaitLanes}), their script followed by {@code WAIT}
 * on it when they wrote; they fail closed when too few replicas acknowledge them or the
 * {@code WAIT} gets no answer (a claim is then given back first: a new one deleted, a takeover left
 * bound to its fingerprint with its lease over).
 *
 * <p>Before any call, the servers' {@code maxmemory-policy} must have been checked since the last
 * (re)connect ({@link #admit()}): a Redis that may evict is refused unless
 * {@code allow-eviction=true}.
 */
final class RedisRecords {

    private static final Logger LOG = Logger.getLogger(RedisRecords.class.getName());
    /**
     * Leases and retentions beyond this (100 years, the longest {@code ttl} and {@code lease} the
     * library allows, so none is cut) are cut to it: the scripts add it to the server's clock (now
     * about 1.8e12 ms) in Lua numbers, doubles exact to 2^53 (about 9e15), and Redis takes the sum
     * as a {@code PXAT} and {@code struct} as an {@code i8}; the completion passes the retention
     * itself as a {@code PX}.
     */
    private static final long MAX_MILLIS = Duration.ofDays(36_500).toMillis();
    /** How long a refusal (IDEMP0831) is answered without asking the servers again. */
    private static final long RECHECK_NANOS = Duration.ofSeconds(1).toNanos();

    private final RedisLink link;
    private final RedisWaitLanes lanes;
    private final String prefix;
    private final int waitReplicas;
    private final Duration waitTimeout;
    private final Duration timeout;
    private final boolean allowEviction;
    private final String where;
    private final String server;
    /** Counts the client's (re)connects: each one makes the eviction check due again. */
    private final AtomicLong connects;
    private final ReentrantLock checking = new ReentrantLock();
    /** The count of connects the last check covered; -1 before the first. */
    private volatile long checked = -1;
    /** Why calls are refused (IDEMP0831), or null. */
    private volatile EvictionRefused refusal;
    private volatile long recheckAt;
    /** What the checks logged (guarded by {@link #checking}). */
    private final Set<String> logged = new HashSet<>();
    /** The retention last sent and its text: nearly every completion sends the same one. */
    private volatile MillisText lastRetention = new MillisText(Duration.ZERO, millis(Duration.ZERO));

    /**
     * @param link the shared connection
     * @param lanes the waited writes' connections, or null when {@code wait-replicas} is 0
     * @param settings the settings
     * @param connects the client's (re)connects so far, counted on
     * @param where the servers, for messages
     * @param server a single server, for messages
     */
    RedisRecords(RedisLink link, RedisWaitLanes lanes, RedisSettings settings, AtomicLong connects, String where,
            String server) {
        this.link = link;
        this.lanes = lanes;
        this.prefix = settings.keyPrefix();
        this.waitReplicas = settings.waitReplicas();
        this.waitTimeout = settings.waitTimeout();
        this.timeout = settings.timeout();
        this.allowEviction = settings.allowEviction();
        this.where = where;
        this.server = server;
        this.connects = connects;
    }

    /** @return whether the shared connection is gone for good (not just reconnecting) */
    boolean isDead() {
        return link.isDead();
    }

    /**
     * Lets a call through once the servers' eviction policy was checked since the last (re)connect:
     * one call checks ({@code INFO memory} on every master), and the calls that come meanwhile wait
     * for its verdict (the reconnect may have reached another server: a promoted replica, one
     * restarted with an evicting policy). A refusal is checked again at most every
     * {@code RECHECK_NANOS}, by one call; the others are refused meanwhile.
     *
     * @throws EvictionRefused while a server may evict and eviction is not allowed
     * @throws IdempotencyStoreException when the check cannot be made
     */
    void admit() {
        long now = connects.get();
        long covered = checked; // read before the verdict: check() writes the verdict first
        EvictionRefused refused = refusal;
        if (now == covered) {
            if (refused == null) {
                return;
            }
            if (System.nanoTime() < recheckAt || !checking.tryLock()) {
                throw new EvictionRefused(refused.getMessage());
            }
        } else {
            lockForTheCheck();
        }
        try {
            long covering = connects.get();
            if (covering != checked || (refusal != null && System.nanoTime() >= recheckAt)) {
                check(covering);
            }
        } finally {
            checking.unlock();
        }
        refused = refusal;
        if (refused != null) {
            throw new EvictionRefused(refused.getMessage());
        }
    }

    /** Waits (at most the call's timeout) for a check under way, then takes the check. */
    private void lockForTheCheck() {
        try {
            if (!checking.tryLock(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new IdempotencyStoreException(RedisMessages.connecting(where));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IdempotencyStoreException(RedisMessages.connecting(where), e);
        }
    }

    private void check(long covering) {
        Map<String, String> policies = link.evictionPolicies(RedisLink.Deadline.after(timeout), server);
        EvictionRefused refused = null;
        for (Map.Entry<String, String> node : policies.entrySet()) {
            if (RedisLink.NO_EVICTION.equals(node.getValue())) {
                continue;
            }
            if (allowEviction) {
                log(Level.WARNING, RedisMessages.evictionAllowed(node.getKey(), node.getValue(),
                        RedisSettings.ALLOW_EVICTION));
            } else if (refused == null) {
                refused = new EvictionRefused(RedisMessages.evictionRefused(node.getKey(), node.getValue(),
                        RedisSettings.ALLOW_EVICTION));
                log(Level.SEVERE, refused.getMessage());
            }
        }
        if (refused == null && !allowEviction) {
            logged.clear(); // a server that evicts again is reported again
        }
        refusal = refused;
        recheckAt = System.nanoTime() + RECHECK_NANOS;
        checked = covering;
    }

    /** Logs each message once (per connect), not at every check. */
    private void log(Level level, String message) {
        if (logged.add(message)) {
            LOG.log(level, message);
        }
    }

    /**
     * One plain {@code SET key claim NX PX kept GET} (no script, so the least of the server's time):
     * a free key is claimed, a completed record or another request's claim is answered from the
     * value it returns. Only a claim of this very request (in progress: its lease decides whether
     * it is taken over) or an executed record (the server's clock decides whether its outcome is
     * lost) needs the claim script, a second round trip, within what the first left of the timeout.
     */
    ClaimResult claim(String key, String fingerprint, Duration lease, Duration retention) {
        RedisLink.Deadline deadline = RedisLink.Deadline.after(timeout);
        byte[] fp = bytes(fingerprint);
        RedisRecordFormat.checked("fingerprint", fp.length, RedisRecordFormat.MAX_FINGERPRINT);
        String owner = OwnerTokens.next();
        byte[] redisKey = redisKey(key);
        long leaseMillis = millisOf(lease);
        long keptMillis = Math.max(leaseMillis, millisOf(retention));
        byte[] record = RedisRecordFormat.claim(fp, bytes(owner), keptMillis - leaseMillis);
        Function<RedisClusterAsyncCommands<byte[], byte[]>, byte[]> set = commands -> link.setIfAbsent(commands, redisKey,
                record, keptMillis);
        byte[] found;
        try {
            found = waitReplicas == 0 ? set.apply(link.commands())
                    : writeAndWait("claim", redisKey, set, Objects::isNull, claimed -> release(key, owner));
        } catch (IdempotencyStoreException refused) {
            // A full Redis (noeviction) refuses the SET before it looks at NX: a key that has a
            // record is still answered from it, as a claim that writes nothing; a free key fails closed.
            found = RedisLink.outOfMemory(refused) ? link.get(redisKey) : null;
            if (found == null) {
                throw refused;
            }
        }
        if (found == null) {
            return new ClaimResult.Acquired(owner, false);
        }
        IdempotencyRecord answered = RedisRecordFormat.answeredWithoutServerTime(key, found, fp);
        if (answered != null) {
            return new ClaimResult.Existing(answered);
        }
        return claimByScript(key, redisKey, fp, owner, leaseMillis, keptMillis, deadline);
    }

    private ClaimResult claimByScript(String key, byte[] redisKey, byte[] fp, String owner, long leaseMillis,
            long keptMillis, RedisLink.Deadline deadline) {
        byte[][] args = {fp, bytes(owner), bytes(Long.toString(leaseMillis)), bytes(Long.toString(keptMillis))};
        Function<RedisClusterAsyncCommands<byte[], byte[]>, List<Object>> script = commands -> link.runWithin(
                deadline.left(), commands, RedisScript.CLAIM, ScriptOutputType.MULTI, redisKey, args);
        List<Object> answer = waitReplicas == 0 ? script.apply(link.commands())
                : writeAndWait("claim", redisKey, script, RedisRecords::acquired, taken -> giveBack(key, owner, taken));
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
        return new ClaimResult.Acquired(owner, takeover(answer));
    }

    private static boolean acquired(List<Object> answer) {
        return answer != null && !answer.isEmpty() && Long.valueOf(1).equals(answer.get(0));
    }

    private static boolean takeover(List<Object> answer) {
        return answer.size() == 3 && Long.valueOf(1).equals(answer.get(2));
    }

    /**
     * Gives back a claim script's claim that could not be confirmed. A new claim is deleted (the
     * key was free before it); a takeover is not: the key was bound to its fingerprint before, and
     * deleting it would let another request in, so its lease is ended instead.
     */
    private void giveBack(String key, String owner, List<Object> answer) {
        if (takeover(answer)) {
            lapse(key, owner);
        } else {
            release(key, owner);
        }
    }

    /** A takeover given back: in progress, its lease over, still bound to its fingerprint. */
    private boolean lapse(String key, String owner) {
        byte[] redisKey = redisKey(key);
        return changed("lapse", link.run(link.commands(), RedisScript.LAPSE, ScriptOutputType.INTEGER, redisKey,
                bytes(owner)));
    }

    boolean complete(String key, String owner, StoredOutcome outcome, Duration retention) {
        byte[] redisKey = redisKey(key);
        byte[][] args = {bytes(owner), retentionText(retention), RedisRecordFormat.outcome(outcome)};
        return changed("complete", written("complete", redisKey, commands -> link.run(commands, RedisScript.COMPLETE,
                ScriptOutputType.INTEGER, redisKey, args)));
    }

    boolean markExecuted(String key, String owner, Duration lease, Duration retention) {
        byte[] redisKey = redisKey(key);
        byte[][] args = {bytes(owner), millis(lease), millis(retention)};
        return changed("markExecuted", written("markExecuted", redisKey, commands -> link.run(commands,
                RedisScript.MARK_EXECUTED, ScriptOutputType.INTEGER, redisKey, args)));
    }

    private Object written(String operation, byte[] redisKey, Function<RedisClusterAsyncCommands<byte[], byte[]>, Object> script) {
        if (waitReplicas == 0) {
            return script.apply(link.commands());
        }
        return writeAndWait(operation, redisKey, script, answer -> Long.valueOf(1).equals(answer), null);
    }

    boolean release(String key, String owner) {
        byte[] redisKey = redisKey(key);
        return changed("release", link.run(link.commands(), RedisScript.RELEASE, ScriptOutputType.INTEGER, redisKey,
                bytes(owner)));
    }

    /**
     * The record with its lease end and its expiry, on the server's clock (the find script: the
     * server's time and the key's {@code PTTL} with the record). The format keeps no claim time.
     */
    Optional<RecordDetails> inspect(String key) {
        byte[] redisKey = redisKey(key);
        List<Object> answer = link.run(link.commands(), RedisScript.FIND, ScriptOutputType.MULTI, redisKey);
        if (answer == null || answer.isEmpty() || !(answer.get(0) instanceof Long now)) {
            throw new IdempotencyStoreException(RedisMessages.unexpectedAnswer("inspect", answer));
        }
        if (answer.size() < 3 || answer.get(1) == null) {
            return Optional.empty();
        }
        if (!(answer.get(1) instanceof byte[] value) || !(answer.get(2) instanceof Long left)) {
            throw new IdempotencyStoreException(RedisMessages.unexpectedAnswer("inspect", answer));
        }
        IdempotencyRecord record = RedisRecordFormat.read(key, value, now);
        boolean leased = record.state() == RecordState.IN_PROGRESS || record.state() == RecordState.EXECUTED;
        return Optional.of(new RecordDetails(record, null,
                leased ? Instant.ofEpochMilli(RedisRecordFormat.deadline(value, now, left)) : null,
                left >= 0 ? Instant.ofEpochMilli(now + left) : null));
    }

    /**
     * A native {@code GET}: a replay costs one plain read, no script. Only an executed record needs
     * the server's clock (is its outcome lost yet?), and only for it the find script reads it again
     * with the server's time.
     */
    Optional<IdempotencyRecord> find(String key) {
        byte[] redisKey = redisKey(key);
        byte[] value = link.get(redisKey);
        if (value == null) {
            return Optional.empty();
        }
        if (!RedisRecordFormat.needsServerTime(value)) {
            return Optional.of(RedisRecordFormat.read(key, value, Long.MIN_VALUE));
        }
        List<Object> answer = link.run(link.commands(), RedisScript.FIND, ScriptOutputType.MULTI, redisKey);
        if (answer == null || answer.isEmpty() || !(answer.get(0) instanceof Long now)) {
            throw new IdempotencyStoreException(RedisMessages.unexpectedAnswer("find", answer));
        }
        if (answer.size() < 2 || answer.get(1) == null) {
            return Optional.empty();
        }
        if (!(answer.get(1) instanceof byte[] again)) {
            throw new IdempotencyStoreException(RedisMessages.unexpectedAnswer("find", answer));
        }
        return Optional.of(RedisRecordFormat.read(key, again, now));
    }

    /**
     * A waited write: the script on a connection of its own, then, if it wrote, {@code WAIT} on the
     * same connection.
     *
     * @param undo what gives the write back, given the script's answer, when it cannot be
     *     confirmed ({@code null}: nothing)
     * @throws IdempotencyStoreException when fewer replicas than asked acknowledged it
     *     ({@code IDEMP0822}), or the {@code WAIT} got no answer ({@code IDEMP0836})
     */
    private <T> T writeAndWait(String operation, byte[] redisKey,
            Function<RedisClusterAsyncCommands<byte[], byte[]>, T> script, Predicate<T> wrote, Consumer<T> undo) {
        RedisWaitLanes.Lane lane = lanes.borrow();
        boolean healthy = false;
        try {
            RedisClusterAsyncCommands<byte[], byte[]> commands = lane.commandsFor(redisKey);
            T answer = script.apply(commands);
            if (!wrote.test(answer)) {
                healthy = true;
                return answer;
            }
            long acknowledged;
            try {
                acknowledged = link.awaitReplicas(commands, waitReplicas, waitTimeout);
            } catch (IdempotencyStoreException e) {
                throw new IdempotencyStoreException(RedisMessages.waitFailed(operation, e.getMessage(), waitReplicas,
                        undo(undo, answer)), e);
            }
            healthy = true;
            if (acknowledged < waitReplicas) {
                throw new IdempotencyStoreException(RedisMessages.tooFewReplicas(operation, acknowledged, waitReplicas,
                        waitTimeout, undo(undo, answer)));
            }
            return answer;
        } finally {
            lanes.giveBack(lane, healthy);
        }
    }

    /** @return whether the write was given back */
    private static <T> boolean undo(Consumer<T> undo, T answer) {
        if (undo == null) {
            return false;
        }
        try {
            undo.accept(answer);
            return true;
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "giving back the claim failed too; it lapses with its lease", e);
            return false;
        }
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

    /** @return the retention as the scripts take it, the array shared by the calls (nobody writes it) */
    private byte[] retentionText(Duration retention) {
        MillisText last = lastRetention;
        if (last.duration().equals(retention)) {
            return last.text();
        }
        byte[] text = millis(retention);
        lastRetention = new MillisText(retention, text);
        return text;
    }

    private record MillisText(Duration duration, byte[] text) {
    }

    private static byte[] millis(Duration duration) {
        return bytes(Long.toString(millisOf(duration)));
    }

    /** @return the duration in milliseconds, at least 1, at most {@link #MAX_MILLIS} */
    private static long millisOf(Duration duration) {
        long millis;
        try {
            millis = duration.toMillis();
        } catch (ArithmeticException e) {
            millis = MAX_MILLIS;
        }
        return Math.max(1, Math.min(MAX_MILLIS, millis));
    }

    /** A server may evict records and {@code allow-eviction} is not set ({@code IDEMP0831}). */
    static final class EvictionRefused extends IdempotencyStoreException {

        private static final long serialVersionUID = 1L;

        EvictionRefused(String message) {
            super(message);
        }
    }
}
