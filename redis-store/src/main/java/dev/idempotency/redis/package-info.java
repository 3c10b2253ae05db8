/**
 * The Redis store: {@link dev.idempotency.redis.RedisIdempotencyStore}, on a single Redis node or
 * a Redis Cluster, over Lettuce. Its settings ({@code idempotency.redis.*}) are in
 * {@link dev.idempotency.redis.RedisSettings}; an application may hand it a Lettuce client of its
 * own with {@link dev.idempotency.redis.IdempotencyRedisClient}. Messages are coded
 * {@code IDEMP08xx}. See {@code docs/stores/redis.md}.
 */
package dev.idempotency.redis;
