package dev.idempotency.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.apache.camel.component.redis.processor.idempotent.SpringRedisStringIdempotentRepository;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.idempotency.redis.RawRedisScripts;
import dev.idempotency.redis.RedisConnection;
import dev.idempotency.redis.RedisIdempotencyStore;
import dev.idempotency.redis.RedisSettings;
import dev.idempotency.spi.support.OwnerTokens;

/**
 * The Redis store against the raw Lettuce operations an owner-safe Redis idempotency store needs
 * at the least, and against Apache Camel's Redis idempotent repository, on the same server
 * ({@link OwnRedis}, single node): ours and the raw baselines share one Lettuce client (the
 * store's options: command timeout, commands rejected while disconnected), each with a
 * connection of its own shared by every benchmark thread, as the store holds one; Camel runs on
 * Spring Data Redis' {@code LettuceConnectionFactory} (one shared native connection, its
 * default), without a Spring context. Every trial ends with {@code FLUSHDB}, so that each
 * benchmark starts on an empty server.
 */
@State(Scope.Benchmark)
public class RedisStoreBenchmark extends OurStoreBenchmark {

    /** the raw keys' prefix: as long as the store's default {@code idem:} */
    static final String RAW_PREFIX = "rawk:";

    private RedisClient client;
    private RedisConnection ourConnection;
    private StatefulRedisConnection<byte[], byte[]> rawConnection;
    private RedisAsyncCommands<byte[], byte[]> raw;
    private LettuceConnectionFactory springFactory;
    private SpringRedisStringIdempotentRepository camel;
    private String rawCompleteSha;
    private byte[] rawClaimPadding;
    private byte[] rawAnswer;
    private byte[] rawReplayKey;
    private final byte[] ttlMillis = bytes(Long.toString(TTL.toMillis()));
    private final SetArgs claimArgs = SetArgs.Builder.nx().px(LEASE.toMillis());

    @Setup(Level.Trial)
    public void connect() throws Exception {
        client = client();
        ourConnection = new RedisConnection(client, settings());
        store = new RedisIdempotencyStore(ourConnection);
        rawConnection = client.connect(ByteArrayCodec.INSTANCE);
        raw = rawConnection.async();
        rawCompleteSha = raw.scriptLoad(RawRedisScripts.COMPLETE).get();

        completeReplayKey();
        // the raw values are as large as ours: the claim's record (head, fingerprint, owner) and the completed one
        byte[] ours = raw.get(bytes(settings().keyPrefix() + replayKey)).get();
        rawAnswer = Arrays.copyOf(Payloads.BODY, ours.length);
        int claimSize = 16 + Payloads.FINGERPRINT.length() + 1 + 36;
        rawClaimPadding = new byte[claimSize - 36];
        byte[] fingerprint = bytes(Payloads.FINGERPRINT);
        System.arraycopy(fingerprint, 0, rawClaimPadding, 0, fingerprint.length);
        rawReplayKey = bytes(RAW_PREFIX + replayKey);
        raw.set(rawReplayKey, ours, SetArgs.Builder.px(TTL.toMillis())).get();

        RedisStandaloneConfiguration spring = new RedisStandaloneConfiguration("127.0.0.1", BenchmarkServers.redisPort());
        spring.setPassword(OwnRedis.PASSWORD);
        springFactory = new LettuceConnectionFactory(spring);
        springFactory.afterPropertiesSet();
        springFactory.start();
        camel = new SpringRedisStringIdempotentRepository(new StringRedisTemplate(springFactory), "camel");
        camel.setExpiry(TTL.toSeconds());
        camel.start();
    }

    /** @return a Lettuce client of the benchmark server, with the options the store gives its own */
    static RedisClient client() {
        RedisClient client = RedisClient.create(RedisURI.Builder.redis("127.0.0.1", BenchmarkServers.redisPort())
                .withPassword(OwnRedis.PASSWORD.toCharArray()).withTimeout(Duration.ofSeconds(2)).build());
        client.setOptions(ClientOptions.builder()
                .socketOptions(SocketOptions.builder().connectTimeout(Duration.ofSeconds(2)).keepAlive(true).build())
                .timeoutOptions(TimeoutOptions.enabled(Duration.ofSeconds(2)))
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .build());
        return client;
    }

    /** @return the store's settings for the benchmark server (its defaults otherwise: prefix {@code idem:}, 2 s, no WAIT) */
    static RedisSettings settings() {
        Map<String, String> values = Map.of("idempotency.redis.uri", BenchmarkServers.redisUri(),
                "idempotency.redis.password", OwnRedis.PASSWORD);
        return RedisSettings.load(key -> Optional.ofNullable(values.get(key)));
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        camel.stop();
        springFactory.destroy();
        raw.flushdb().get();
        rawConnection.close();
        client.shutdown();
    }

    /**
     * The raw floor of an owner-safe claim and completion in Redis: {@code SET key claim NX PX lease
     * GET} (a claim answering the winner's record when it loses), then one {@code EVALSHA} of a
     * script that checks the owner and writes the answer for the ttl.
     */
    @Benchmark
    public boolean rawSetNxPxGetThenEvalsha(Keys keys) throws InterruptedException, ExecutionException {
        byte[] key = bytes(RAW_PREFIX + keys.next());
        byte[] owner = bytes(OwnerTokens.next());
        byte[] claim = new byte[owner.length + rawClaimPadding.length];
        System.arraycopy(owner, 0, claim, 0, owner.length);
        System.arraycopy(rawClaimPadding, 0, claim, owner.length, rawClaimPadding.length);
        if (raw.setGet(key, claim, claimArgs).get() != null) {
            return false;
        }
        Long done = raw.<Long>evalsha(rawCompleteSha, ScriptOutputType.INTEGER, new byte[][] {key}, owner, ttlMillis,
                rawAnswer).get();
        return done == 1L;
    }

    /** The raw floor of a replay: one {@code GET} of a copy of our completed record. */
    @Benchmark
    public byte[] rawGet() throws InterruptedException, ExecutionException {
        return raw.get(rawReplayKey).get();
    }

    /** Apache Camel's {@code SpringRedisStringIdempotentRepository}: {@code add} ({@code SET NX EX}) then {@code confirm} (nothing); it stores the key only. */
    @Benchmark
    public boolean camelAddThenConfirm(Keys keys) {
        String key = keys.next();
        return camel.add(key) && camel.confirm(key);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
