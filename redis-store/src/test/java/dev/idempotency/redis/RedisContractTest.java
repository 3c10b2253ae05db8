package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.spi.contract.IdempotencyStoreContractTest;

/**
 * The store contract on real Redis servers, plus what is Redis' own: the record layout the
 * scripts rely on, expiry set by the server, {@code NOSCRIPT} recovery, unknown formats failing
 * closed. Subclasses start a single node or a cluster; the store connects as an ACL user.
 */
abstract class RedisContractTest extends IdempotencyStoreContractTest {

    /** @return the store's connection, shared by the class's tests */
    protected abstract RedisConnection connection();

    /** Runs redis-cli as the admin on the node that holds a key (or any node, for keyless commands). */
    protected abstract String admin(String... args);

    /** Flushes the script cache of every node. */
    protected abstract void flushScripts();

    /** @return whether the node holding the key knows the script */
    protected abstract boolean scriptKnownWhere(String redisKey, RedisScript script);

    static RedisSettings settings(Map<String, String> values) {
        return RedisSettings.load(key -> Optional.ofNullable(values.get(key)));
    }

    @Override
    protected IdempotencyStore createStore() {
        return new RedisIdempotencyStore(connection());
    }

    /** Redis expires to the millisecond: half a second is plenty to wait out. */
    @Override
    protected Duration shortDuration() {
        return Duration.ofMillis(500);
    }

    /**
     * @return head fields of the stored record, read by a script of the test's own as the format
     *     documents them: format, state, deadline - now (an in-progress deadline of 0 or less: that
     *     long before the record expires), version, fingerprint, owner, the deadline as stored
     */
    private List<String> head(String key) {
        String out = admin("EVAL", """
                local v = redis.call('GET', KEYS[1])
                local t = redis.call('TIME')
                local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
                local f, s, d, n, fp, o = struct.unpack('>BBi8I4Hc0Bc0', v)
                local left = 0
                if d > 0 then left = d - now elseif s == 1 then left = redis.call('PTTL', KEYS[1]) + d end
                return {f, s, left, n, fp, o, d}
                """, "1", "idem:" + key);
        return List.of(out.split("\n"));
    }

    @Test
    void theRecordKeepsTheDocumentedHeadThatTheScriptsRead() {
        String key = freshKey();
        String owner = acquire(key, "fp-layout", LONG, LONG.multipliedBy(2));

        List<String> claimed = head(key);
        assertThat(claimed.get(0)).as("format").isEqualTo("1");
        assertThat(claimed.get(1)).as("state: in progress").isEqualTo("1");
        assertThat(Long.parseLong(claimed.get(2))).as("lease left, server ms").isBetween(LONG.toMillis() - 5_000, LONG.toMillis());
        assertThat(claimed.subList(3, 6)).containsExactly("1", "fp-layout", owner);
        assertThat(claimed.get(6)).as("written by the plain SET: the lease ends the lease before the expiry")
                .isEqualTo(String.valueOf(-LONG.toMillis()));

        store().markExecuted(key, owner, Duration.ofMinutes(3), LONG);
        List<String> marked = head(key);
        assertThat(marked.get(1)).as("state: executed").isEqualTo("2");
        assertThat(Long.parseLong(marked.get(2))).as("outcome due, server ms").isBetween(175_000L, 180_000L);
        assertThat(marked.get(3)).as("version").isEqualTo("2");

        store().complete(key, owner, sampleOutcome(), LONG);
        List<String> completed = head(key);
        assertThat(completed.subList(0, 7)).containsExactly("1", "3", "0", "3", "fp-layout", owner, "0");
    }

    @Test
    void theServerExpiresRecordsAfterTheirRetentionAndNeverAtTheLease() {
        String key = freshKey();
        String owner = acquire(key, "fp", Duration.ofMinutes(1), Duration.ofHours(1));
        assertThat(Long.parseLong(admin("PTTL", "idem:" + key))).as("a claim is kept for its retention")
                .isBetween(Duration.ofHours(1).toMillis() - 5_000, Duration.ofHours(1).toMillis());

        store().complete(key, owner, sampleOutcome(), Duration.ofHours(2));
        assertThat(Long.parseLong(admin("PTTL", "idem:" + key))).as("a completion for the completion's retention")
                .isBetween(Duration.ofHours(2).toMillis() - 5_000, Duration.ofHours(2).toMillis());
    }

    /** The longest ttl and lease the library allows, {@code P36500D}, kept whole: not cut to some 31 years. */
    @Test
    void aRetentionOfAHundredYearsIsKeptWhole() {
        Duration century = Duration.ofDays(36_500);
        long atLeast = Duration.ofDays(36_000).toMillis();
        String key = freshKey();
        String owner = acquire(key, "fp", LONG, century);
        assertThat(Long.parseLong(admin("PTTL", "idem:" + key))).as("a claim kept for its retention").isGreaterThan(atLeast);

        assertThat(store().markExecuted(key, owner, century, century)).isTrue();
        assertThat(Long.parseLong(head(key).get(2))).as("a mark's outcome due after its lease").isGreaterThan(atLeast);

        assertThat(store().complete(key, owner, sampleOutcome(), century)).isTrue();
        assertThat(Long.parseLong(admin("PTTL", "idem:" + key))).as("a completion kept for its retention")
                .isGreaterThan(atLeast);
        assertThat(store().find(key).orElseThrow().outcome()).isEqualTo(sampleOutcome());
    }

    @Test
    void aFlushedScriptCacheIsLoadedAgainByTheNextCall() {
        String key = freshKey();
        String owner = acquire(key, "fp");

        flushScripts();
        assertThat(scriptKnownWhere("idem:" + key, RedisScript.COMPLETE)).as("flushed").isFalse();

        assertThat(store().complete(key, owner, sampleOutcome(), LONG)).isTrue();
        assertThat(scriptKnownWhere("idem:" + key, RedisScript.COMPLETE)).as("cached again where it ran").isTrue();
        assertThat(store().find(key).orElseThrow().outcome()).isEqualTo(sampleOutcome());
        assertThat(store().claim(key, "fp", LONG)).isInstanceOf(ClaimResult.Existing.class);
        assertThat(store().release(freshKey(), "nobody")).isFalse();
    }

    @Test
    void aRecordOfAFormatThisVersionDoesNotKnowFailsClosedAndIsLeftAsItIs() {
        String key = freshKey();
        admin("SET", "idem:" + key, "2-written-by-a-later-version");

        assertThatThrownBy(() -> store().claim(key, "fp", LONG)).isInstanceOf(IdempotencyStoreException.class)
                .hasMessageContaining("IDEMP0823").hasMessageContaining("format 50");
        assertThatThrownBy(() -> store().find(key)).isInstanceOf(IdempotencyStoreException.class);
        assertThat(store().release(key, "anyone")).isFalse();
        assertThat(admin("GET", "idem:" + key)).isEqualTo("2-written-by-a-later-version");
    }

    /** Runs a store script as the admin: a client that sent it twice (Lettuce re-sends commands after a reconnect). */
    private List<String> runScript(RedisScript script, String key, String... args) {
        List<String> command = new ArrayList<>(List.of("EVAL", new String(script.source(), StandardCharsets.UTF_8), "1",
                "idem:" + key));
        command.addAll(List.of(args));
        return List.of(admin(command.toArray(String[]::new)).split("\n"));
    }

    @Test
    void eachWritingScriptRunTwiceWithTheSameArgumentsGivesTheSameAnswer() {
        String key = freshKey();
        String owner = "owner-" + freshKey();
        String lease = "60000";

        List<String> claimed = runScript(RedisScript.CLAIM, key, "fp", owner, lease, lease);
        List<String> claimedAgain = runScript(RedisScript.CLAIM, key, "fp", owner, lease, lease);
        assertThat(claimed).hasSize(3).first().isEqualTo("1");
        assertThat(claimedAgain).as("the claim run again: acquired again, not found in progress").hasSize(3)
                .first().isEqualTo("1");
        assertThat(claimedAgain.get(2)).as("takeover").isEqualTo(claimed.get(2));
        assertThat(runScript(RedisScript.CLAIM, key, "fp", "owner-other", lease, lease).get(0))
                .as("another claim still finds it").isEqualTo("0");

        assertThat(runScript(RedisScript.MARK_EXECUTED, key, owner, lease, lease)).containsExactly("1");
        assertThat(runScript(RedisScript.MARK_EXECUTED, key, owner, lease, lease)).as("the mark run again")
                .containsExactly("1");
        assertThat(runScript(RedisScript.MARK_EXECUTED, key, "owner-other", lease, lease)).containsExactly("0");

        assertThat(runScript(RedisScript.COMPLETE, key, owner, lease, "the-outcome")).containsExactly("1");
        assertThat(runScript(RedisScript.COMPLETE, key, owner, lease, "the-outcome")).as("the completion run again")
                .containsExactly("1");
        assertThat(runScript(RedisScript.COMPLETE, key, owner, lease, "another-outcome"))
                .as("the owner completing with another outcome changes nothing").containsExactly("0");
        assertThat(runScript(RedisScript.MARK_EXECUTED, key, owner, lease, lease)).as("completed: no mark")
                .containsExactly("0");

        String taken = freshKey();
        runScript(RedisScript.CLAIM, taken, "fp", owner, lease, lease);
        assertThat(runScript(RedisScript.LAPSE, taken, owner)).containsExactly("1");
        List<String> lapsed = head(taken);
        assertThat(Long.parseLong(lapsed.get(2))).as("lease left").isLessThanOrEqualTo(0);
        assertThat(runScript(RedisScript.LAPSE, taken, owner)).as("the lapse run again").containsExactly("1");
        List<String> again = head(taken);
        assertThat(List.of(again.get(3), again.get(6))).as("version and deadline left as they are")
                .containsExactly(lapsed.get(3), lapsed.get(6));
        assertThat(runScript(RedisScript.LAPSE, taken, "owner-other")).containsExactly("0");
    }

    @Test
    void theVersionWrapsToOneAfterItsLargestValue() {
        String key = freshKey();
        // a lease that ended at the epoch's first millisecond (0 or less would be a lease relative to the expiry)
        admin("EVAL", "return redis.call('SET', KEYS[1], struct.pack('>BBi8I4Hc0Bc0', 1, 1, 1, 4294967295, 2, 'fp', 3,"
                + " 'old'), 'PX', 60000)", "1", "idem:" + key);

        ClaimResult claim = store().claim(key, "fp", LONG);
        assertThat(claim).isInstanceOfSatisfying(ClaimResult.Acquired.class, a -> assertThat(a.takeover()).isTrue());
        assertThat(head(key).get(3)).as("version after 2^32 - 1").isEqualTo("1");
        String owner = ((ClaimResult.Acquired) claim).owner();
        assertThat(store().markExecuted(key, owner, LONG, LONG)).isTrue();
        assertThat(head(key).get(3)).isEqualTo("2");
    }

    @Test
    void aFingerprintOrHeadersOverTheFormatsLimitsFailAsAStoreFailureWithACode() {
        String tooLong = "f".repeat(70_000);
        assertThatThrownBy(() -> store().claim(freshKey(), tooLong, LONG)).isInstanceOf(IdempotencyStoreException.class)
                .hasMessageContaining("IDEMP0826").hasMessageContaining("fingerprint");

        String key = freshKey();
        String owner = acquire(key, "fp");
        Map<String, List<String>> manyHeaders = new java.util.HashMap<>();
        for (int i = 0; i < 70_000; i++) {
            manyHeaders.put("X-" + i, List.of("v"));
        }
        assertThatThrownBy(() -> store().complete(key, owner, StoredOutcome.of(200, manyHeaders, new byte[0]), LONG))
                .isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("IDEMP0826")
                .hasMessageContaining("header count");
        assertThatThrownBy(() -> store().complete(key, owner, StoredOutcome.of(200,
                Map.of("X-" + "n".repeat(70_000), List.of("v")), new byte[0]), LONG))
                .isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("IDEMP0826")
                .hasMessageContaining("header name");
        assertThat(store().complete(key, owner, sampleOutcome(), LONG)).as("nothing was written").isTrue();
    }
}
