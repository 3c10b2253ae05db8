package dev.idempotency.sample.imports;

import java.time.Instant;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.Idempotent;
import dev.idempotency.sample.Payment;
import dev.idempotency.sample.PaymentLedger;

/**
 * Processes one message of the local message table, once: keyed by the message id, the payment
 * row, the message's DONE state and the idempotency record commit in one transaction. A second
 * worker on the same message meanwhile gets {@code IdempotencyConflictException}; later, the
 * first result.
 */
@ApplicationScoped
public class ImportProcessor {

    /** The longest {@code delayMs} honoured. */
    static final long MAX_DELAY_MS = 30_000;

    @PersistenceContext(unitName = "payments")
    EntityManager entityManager;

    @Inject
    PaymentLedger ledger;

    @Inject
    ImportActivity activity;

    /**
     * A message a worker read as due that is not any more: another worker's attempt failed (it now
     * waits) or gave it up. Not a failure of its own; rolls back like any exception, which gives
     * the key back.
     */
    public static final class NotDue extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotDue(String messageId) {
            super("import " + messageId + " is not due");
        }
    }

    /**
     * @param messageId the message to process
     * @return the payment it made
     * @throws InterruptedException when interrupted during the message's {@code delayMs}
     * @throws NotDue when the message is no longer PENDING, or waits after a failure
     */
    @Idempotent
    @Transactional(rollbackOn = Exception.class)
    public ImportResult process(@IdempotencyKey String messageId) throws InterruptedException {
        int attempt = activity.attempt(messageId);
        ImportMessage message = entityManager.find(ImportMessage.class, messageId);
        if (message == null) {
            throw new IllegalArgumentException("no import message " + messageId);
        }
        if (ImportMessage.DONE.equals(message.state())) {
            // processed long ago, and its idempotency record has expired since: the row still says so
            activity.settled(messageId);
            return new ImportResult(message.id(), message.paymentId());
        }
        if (!ImportMessage.PENDING.equals(message.state()) || message.nextAttemptAt().isAfter(Instant.now())) {
            // read by a worker before another's attempt failed (or gave it up): not due any more
            throw new NotDue(messageId);
        }
        if (message.attempts() < message.failAttempts()) {
            throw new IllegalStateException("import " + messageId + ": failing attempt " + (message.attempts() + 1)
                    + " of the " + message.failAttempts() + " asked for (failAttempts)");
        }
        if (attempt == 1 && message.delayMs() > 0) {
            Thread.sleep(Math.min(message.delayMs(), MAX_DELAY_MS));
        }
        Payment payment = new Payment(UUID.randomUUID().toString(), message.orderId(), message.amount(),
                message.currency(), message.payer());
        ledger.add(payment);
        message.done(payment.id(), Instant.now());
        activity.processed();
        activity.settled(messageId);
        return new ImportResult(message.id(), payment.id());
    }
}
