package dev.idempotency.it.consumers;

import java.util.List;

import jakarta.ejb.Stateless;
import jakarta.inject.Inject;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.Idempotent;

/** A stateless EJB consumer returning a generic list. */
@Stateless
public class EjbOrderConsumer {

    @Inject
    SideEffects effects;

    @Idempotent
    public List<Receipt> onOrder(@IdempotencyKey("orderNo") OrderMessage message) {
        int sequence = effects.record("ejb", message.delayMs());
        return List.of(new Receipt(message.orderNo(), sequence, List.of("ejb")),
                new Receipt(message.orderNo(), sequence, List.of("copy")));
    }
}
