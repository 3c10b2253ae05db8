package dev.idempotency.it.consumers;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.Idempotent;

/** A CDI message consumer. */
@ApplicationScoped
public class CdiOrderConsumer {

    @Inject
    SideEffects effects;

    @Idempotent
    public Receipt onOrder(@IdempotencyKey("orderNo") OrderMessage message) {
        int sequence = effects.record("cdi", message.delayMs());
        return new Receipt(message.orderNo(), sequence, List.of("cdi", "amount=" + message.amount()));
    }
}
