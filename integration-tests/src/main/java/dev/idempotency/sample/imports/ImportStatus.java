package dev.idempotency.sample.imports;

/**
 * What {@code POST /api/imports} and {@code GET /api/imports/{id}} answer.
 *
 * @param id the message id (the status URL ends with it)
 * @param state {@code PENDING}, {@code DONE}, or {@code FAILED} (given up after
 *     {@code sample.imports.max-attempts} failed attempts)
 * @param paymentId the payment made, once done
 * @param attempts the failed attempts so far
 */
public record ImportStatus(String id, String state, String paymentId, int attempts) {

    static ImportStatus of(ImportMessage message) {
        return new ImportStatus(message.id(), message.state(), message.paymentId(), message.attempts());
    }
}
