package dev.idempotency.sample.imports;

/**
 * What processing one message produced; stored by the idempotency record and returned again to a
 * worker that processes the same message twice.
 *
 * @param messageId the message
 * @param paymentId the payment it made
 */
public record ImportResult(String messageId, String paymentId) {
}
