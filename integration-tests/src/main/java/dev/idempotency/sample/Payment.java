package dev.idempotency.sample;

/**
 * A created payment.
 *
 * @param id a fresh id per execution, so that a replay is recognisable
 * @param orderId the order paid
 * @param amount the amount in minor units
 * @param currency the ISO currency code
 * @param payer the authenticated caller, or {@code anonymous}
 */
public record Payment(String id, String orderId, long amount, String currency, String payer) {
}
