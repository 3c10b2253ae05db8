package dev.idempotency.sample.imports;

/**
 * What {@code POST /api/imports} and {@code GET /api/imports/{id}} answer.
 *
 * @param id the message id (the status URL ends with it)
 * @param state {@code PENDING} or {@code DONE}
 * @param paymentId the payment made, once done
 */
public record ImportStatus(String id, String state, String paymentId) {

    static ImportStatus of(ImportMessage message) {
        return new ImportStatus(message.id(), message.state(), message.paymentId());
    }
}
