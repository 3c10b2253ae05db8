package dev.idempotency.redis;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import jakarta.inject.Qualifier;

/**
 * Qualifies a Lettuce client the Redis store should use instead of creating its own from the
 * {@code idempotency.redis.*} settings: an {@code io.lettuce.core.RedisClient} created with its
 * {@code RedisURI} (a single node), or an {@code io.lettuce.core.cluster.RedisClusterClient}
 * (a Redis Cluster). The store gets the bean once, opens its own connections on it (binary codec)
 * and closes those; the application closes the client. Of the settings, only {@code key-prefix},
 * {@code timeout}, {@code wait-replicas}, {@code wait-timeout} and {@code allow-eviction} then
 * apply; give the client a command timeout above {@code timeout} (plus {@code wait-timeout} when
 * waiting for replicas). With {@code wait-replicas} above 0, give it
 * {@code ClientOptions.builder().autoReconnect(false)} too: a client that reconnects by itself
 * (at-least-once) may run a {@code WAIT} on a new connection, where it counts no write; the store
 * warns about such a client ({@code IDEMP0833}).
 *
 * <pre>{@code
 * @Produces @IdempotencyRedisClient @ApplicationScoped
 * RedisClusterClient idempotencyRedis() {
 *     return RedisClusterClient.create(List.of(RedisURI.create("rediss://redis-1.internal:6379")));
 * }
 *
 * void close(@Disposes @IdempotencyRedisClient RedisClusterClient client) {
 *     client.shutdown();
 * }
 * }</pre>
 */
@Qualifier
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE})
public @interface IdempotencyRedisClient {
}
