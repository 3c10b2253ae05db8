package dev.idempotency.it.consumers;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.Idempotent;
import dev.idempotency.InProgressDuplicates;

/** A CDI message consumer whose redeliveries in flight wait for the first one's result. */
@ApplicationScoped
public class WaitingOrderConsumer {

    @Inject
    SideEffects effects;

    @Idempotent(inProgress = InProgressDuplicates.WAIT)
    public Receipt onOrder(@IdempotencyKey("orderNo") OrderMessage message) {
        int sequence = effects.record("waiting", message.delayMs());
        return new Receipt(message.orderNo(), sequence, List.of("waiting", "amount=" + message.amount()));
    }
}
