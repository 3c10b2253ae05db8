package dev.idempotency.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The store's Lua scripts, one per operation (a claim only where its plain {@code SET} found a
 * record that needs the server's clock), plus one that gives back a takeover whose {@code WAIT}
 * failed, each one round trip on one key (so one hash slot).
 * Every time is the Redis server's ({@code TIME} inside the script, {@code PXAT} expiries computed
 * from it, {@code PX} ones counted by the server, and {@code PTTL} for a claim whose lease end is
 * relative to its expiry), never an application node's. Loaded with {@code SCRIPT LOAD} when the store
 * connects and run with {@code EVALSHA}; a server that answers {@code NOSCRIPT} (restarted,
 * failed over, {@code SCRIPT FLUSH}) gets the script's text with {@code EVAL} on the same key,
 * which runs it on the node that answered and caches it there again.
 *
 * <p>Records are in {@link RedisRecordFormat}; the scripts read and write the head with
 * {@code struct}, and copy the identity (fingerprint and owner) byte for byte.
 */
enum RedisScript {

    /**
     * KEYS[1] the record; ARGV fingerprint, owner, lease ms, kept ms (the larger of lease and
     * retention). The store runs it only where its plain {@code SET NX PX GET} found a record it
     * cannot answer without the server's clock, and where that {@code SET} cannot be used. Free
     * key: a new claim. In progress, lease over (by the server's clock), same fingerprint: a
     * takeover (version + 1, new owner). In progress with this very owner and fingerprint: this
     * claim run again (a client that sent it twice), answered as the first time, the record written
     * again unchanged (its expiry kept) so that a {@code WAIT} after it counts it, as a repeated
     * mark's and completion's (a full server's refusal of that write changes nothing).
     * Anything else: the record as it is. Answers {1, now, takeover 0/1} or {0, now, record}.
     */
    CLAIM("claim", """
            local v = redis.call('GET', KEYS[1])
            local now = now_ms()
            local version = 1
            local takeover = 0
            if v then
              local h = head(v)
              if h and h.state == 1 and h.owner == ARGV[2] and h.fp == ARGV[1] then
                if h.version ~= 1 then
                  takeover = 1
                end
                redis.pcall('SET', KEYS[1], v, 'KEEPTTL') -- refused by a full server: answered all the same
                return {1, now, takeover}
              end
              if not h or h.state ~= 1 or now < lease_end(h, now) or h.fp ~= ARGV[1] then
                return {0, now, v}
              end
              version = next_version(h.version)
              takeover = 1
            end
            redis.call('SET', KEYS[1], struct.pack(HEAD, 1, 1, now + tonumber(ARGV[3]), version,
              #ARGV[1], ARGV[1], #ARGV[2], ARGV[2]), 'PXAT', now + tonumber(ARGV[4]))
            return {1, now, takeover}
            """),

    /**
     * ARGV owner, retention ms, outcome bytes. Only the owner of an in-progress or executed
     * record, whatever its lease: completed, kept for the retention. Completed already by this
     * owner with this very outcome: this completion run again, answered 1, the record written
     * again as it is (its expiry kept), so that a {@code WAIT} after it, on whatever connection,
     * counts the record and not only that connection's older writes. Answers 1 or 0. Its expiry is
     * {@code PX}, counted by the server's clock as a {@code PXAT} from {@code TIME} would be,
     * without reading the time first.
     */
    COMPLETE("complete", """
            local v = redis.call('GET', KEYS[1])
            local h = head(v)
            if h and h.state == 3 and h.owner == ARGV[1] and string.sub(v, h.tail) == ARGV[3] then
              redis.call('SET', KEYS[1], v, 'KEEPTTL')
              return 1
            end
            if not h or (h.state ~= 1 and h.state ~= 2) or h.owner ~= ARGV[1] then
              return 0
            end
            redis.call('SET', KEYS[1], struct.pack('>BBi8I4', 1, 3, 0, next_version(h.version))
              .. string.sub(v, 15, h.tail - 1) .. ARGV[3], 'PX', ARGV[2])
            return 1
            """),

    /**
     * ARGV owner, lease ms, retention ms. Only the owner of an in-progress record, whatever its
     * lease: executed, its outcome due within the lease, kept for the retention. Executed already
     * by this owner: this mark run again (the library repeats a mark whose answer was lost),
     * answered 1, the record written again unchanged (its deadline and expiry stay): a write, so
     * that a {@code WAIT} after it covers the first mark too, whatever connection it runs on (a
     * {@code WAIT} on a connection that wrote nothing reports every replica at once, even one
     * that never got the mark). Answers 1 or 0.
     */
    MARK_EXECUTED("markExecuted", """
            local v = redis.call('GET', KEYS[1])
            local h = head(v)
            if h and h.state == 2 and h.owner == ARGV[1] then
              redis.call('SET', KEYS[1], v, 'KEEPTTL')
              return 1
            end
            if not h or h.state ~= 1 or h.owner ~= ARGV[1] then
              return 0
            end
            local now = now_ms()
            redis.call('SET', KEYS[1], struct.pack('>BBi8I4', 1, 2, now + tonumber(ARGV[2]), next_version(h.version))
              .. string.sub(v, 15, h.tail - 1), 'PXAT', now + tonumber(ARGV[3]))
            return 1
            """),

    /** ARGV owner. Only the owner of an in-progress or executed record: deleted. Answers 1 or 0. */
    RELEASE("release", """
            local h = head(redis.call('GET', KEYS[1]))
            if not h or (h.state ~= 1 and h.state ~= 2) or h.owner ~= ARGV[1] then
              return 0
            end
            redis.call('DEL', KEYS[1])
            return 1
            """),

    /**
     * ARGV owner. Gives back a takeover that could not be confirmed (its {@code WAIT} failed)
     * without freeing the key, which was bound to its fingerprint before the takeover: only the
     * owner of an in-progress record, its lease ended now by the server's clock (the deadline the
     * server's time, version + 1), the record and its expiry kept, so that another request is still
     * refused and a retry of this one takes it over at once. Its lease over already (this lapse run
     * again): answered 1, left as it is. Answers 1 or 0.
     */
    LAPSE("lapse", """
            local v = redis.call('GET', KEYS[1])
            local h = head(v)
            if not h or h.state ~= 1 or h.owner ~= ARGV[1] then
              return 0
            end
            local now = now_ms()
            if lease_end(h, now) <= now then
              return 1
            end
            redis.call('SET', KEYS[1], struct.pack('>BBi8I4', 1, 1, now, next_version(h.version))
              .. string.sub(v, 15, h.tail - 1), 'KEEPTTL')
            return 1
            """),

    /**
     * No ARGV. Answers {now} or {now, record, pttl}: the server's time judges an executed record's
     * deadline; with the time the record has left, a claim's lease end and the record's expiry can
     * be told.
     */
    FIND("find", """
            local v = redis.call('GET', KEYS[1])
            if not v then
              return {now_ms()}
            end
            return {now_ms(), v, redis.call('PTTL', KEYS[1])}
            """);

    /**
     * What every script starts with: the server's clock, the record's head, an in-progress record's
     * lease end (its deadline, or, for a claim written by a plain {@code SET} whose deadline is 0 or
     * less, that many milliseconds before the record expires: {@link RedisRecordFormat}), and the
     * next version (an unsigned 32-bit number: after 4294967295 it wraps to 1, never 0; versions are
     * only told apart, never ordered, and the owner token decides who may write, so a wrap changes
     * nothing).
     */
    static final String PRELUDE = """
            local function now_ms()
              local t = redis.call('TIME')
              return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            end
            local HEAD = '>BBi8I4Hc0Bc0'
            local function head(v)
              if not v or string.byte(v, 1) ~= 1 then
                return nil
              end
              local _, state, deadline, version, fp, owner, tail = struct.unpack(HEAD, v)
              return {state = state, deadline = deadline, version = version, fp = fp, owner = owner, tail = tail}
            end
            local function lease_end(h, now)
              if h.deadline > 0 then
                return h.deadline
              end
              return now + redis.call('PTTL', KEYS[1]) + h.deadline
            end
            local function next_version(n)
              if n >= 4294967295 then
                return 1
              end
              return n + 1
            end
            """;

    private final String operation;
    private final byte[] source;
    private final String sha;

    RedisScript(String operation, String body) {
        this.operation = operation;
        this.source = (PRELUDE + body).getBytes(StandardCharsets.UTF_8);
        this.sha = sha1(source);
    }

    /** @return the SPI operation it implements, for messages */
    String operation() {
        return operation;
    }

    /** @return the script's text */
    byte[] source() {
        return source.clone();
    }

    /** @return its SHA-1, as {@code SCRIPT LOAD} answers and {@code EVALSHA} takes it */
    String sha() {
        return sha;
    }

    private static String sha1(byte[] text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-1", e);
        }
    }
}
