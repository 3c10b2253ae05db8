package dev.idempotency.sample;

/**
 * What a webhook receiver of the sample answers a delivery with.
 *
 * @param receiver which receiver ran
 * @param execution the number of this execution of the receiver: a replay shows the first one's
 * @param receiptId a fresh id per execution, so that a replay is recognisable
 */
public record WebhookReceipt(String receiver, long execution, String receiptId) {
}
