package dev.idempotency.it.consumers;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import jakarta.inject.Inject;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.Idempotent;

/**
 * Compensates an order whose transaction rolled back, once per order: an observer that the server
 * calls from the transaction's afterCompletion, the rolled-back transaction still on the thread.
 */
@ApplicationScoped
public class AfterFailureConsumer {

    /** What is fired inside the transaction that then rolls back. */
    public record Compensation(String orderNo) {
    }

    @Inject
    SideEffects effects;

    @Idempotent
    public void compensate(@Observes(during = TransactionPhase.AFTER_FAILURE) @IdempotencyKey("orderNo") Compensation order) {
        effects.record("after-failure", 0);
    }
}
