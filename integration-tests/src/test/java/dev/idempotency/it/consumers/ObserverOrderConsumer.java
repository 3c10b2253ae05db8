package dev.idempotency.it.consumers;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.Idempotent;

/** A CDI observer: events fired twice are handled once. */
@ApplicationScoped
public class ObserverOrderConsumer {

    @Inject
    SideEffects effects;

    @Idempotent
    public void on(@Observes @IdempotencyKey("orderNo") OrderMessage message) {
        effects.record("observer", message.delayMs());
    }
}
