package dev.idempotency.it.consumers;

/**
 * A message as a queue would deliver it; {@code orderNo} is its idempotency key.
 *
 * @param orderNo the order
 * @param amount the amount
 * @param delayMs how long the consumer works on it
 */
public record OrderMessage(String orderNo, long amount, long delayMs) {
}
