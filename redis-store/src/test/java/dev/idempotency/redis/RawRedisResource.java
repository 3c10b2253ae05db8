package dev.idempotency.redis;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.eclipse.microprofile.config.ConfigProvider;

import dev.idempotency.spi.support.ConfigLookup;
import dev.idempotency.spi.support.OwnerTokens;

/**
 * The HTTP benchmark's physical floor on Redis (integration-tests' {@code HttpBenchmark}, which adds
 * this class to the Redis application's {@code WEB-INF/classes}, in the store's package so that it
 * builds its client as the store does): an unannotated method that makes, itself, the round trips
 * an owner-safe first execution cannot avoid, {@code SET key claim NX PX lease GET} (the claim, the
 * winner's record on conflict) and one {@code EVALSHA} (the owner-checked completion with the
 * answer), as the store-level benchmark's raw baseline does, with a client of the store's options
 * from the same settings, under the store's key prefix (the ACL user's keys).
 */
@Path("bench/raw-redis")
@ApplicationScoped
public class RawRedisResource {

    /** The benchmark endpoints' answer (integration-tests' {@code BenchResource.ANSWER}): the same bytes. */
    static final String ANSWER = "{\"status\":\"accepted\",\"id\":\"00000000-0000-0000-0000-000000000000\"}";
    /** About the size of the store's claim record (head, fingerprint, owner) after the owner token. */
    private static final byte[] PADDING = new byte[70];
    private static final byte[] TTL_MILLIS = "1800000".getBytes(StandardCharsets.US_ASCII);
    private static final SetArgs LEASE = SetArgs.Builder.nx().px(600_000);

    private RedisClient client;
    private StatefulRedisConnection<byte[], byte[]> connection;
    private RedisAsyncCommands<byte[], byte[]> commands;
    private String completeSha;
    private String prefix;

    @PostConstruct
    void connect() {
        RedisSettings settings = RedisSettings.load(ConfigLookup.of(ConfigProvider.getConfig()));
        client = (RedisClient) RedisConnection.createClient(settings);
        connection = client.connect(ByteArrayCodec.INSTANCE);
        commands = connection.async();
        prefix = settings.keyPrefix() + "raw:";
        completeSha = await(commands.scriptLoad(RawRedisScripts.COMPLETE));
    }

    @PreDestroy
    void close() {
        connection.close();
        client.shutdown();
    }

    /** @return the answer the idempotent method gives, after the two round trips; 409 if the key was taken */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response firstExecution(@HeaderParam("Idempotency-Key") String key, String body) {
        byte[] redisKey = (prefix + key).getBytes(StandardCharsets.UTF_8);
        byte[] owner = OwnerTokens.next().getBytes(StandardCharsets.US_ASCII);
        byte[] claim = new byte[owner.length + PADDING.length];
        System.arraycopy(owner, 0, claim, 0, owner.length);
        if (await(commands.setGet(redisKey, claim, LEASE)) != null) {
            return Response.status(409).build();
        }
        Long completed = await(commands.<Long>evalsha(completeSha, ScriptOutputType.INTEGER, new byte[][] {redisKey}, owner,
                TTL_MILLIS, ANSWER.getBytes(StandardCharsets.UTF_8)));
        return completed == 1 ? Response.ok(ANSWER).build() : Response.status(409).build();
    }

    private static <T> T await(java.util.concurrent.Future<T> future) {
        try {
            return future.get(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }
}
