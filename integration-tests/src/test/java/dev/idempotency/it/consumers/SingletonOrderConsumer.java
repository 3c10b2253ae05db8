package dev.idempotency.it.consumers;

import java.util.Optional;

import jakarta.ejb.Lock;
import jakarta.ejb.LockType;
import jakarta.ejb.Singleton;
import jakarta.inject.Inject;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.Idempotent;

/** A singleton EJB consumer with concurrent access, returning an Optional. */
@Singleton
@Lock(LockType.READ)
public class SingletonOrderConsumer {

    @Inject
    SideEffects effects;

    @Idempotent
    public Optional<Receipt> onOrder(@IdempotencyKey("orderNo") OrderMessage message) {
        int sequence = effects.record("singleton", message.delayMs());
        return Optional.of(new Receipt(message.orderNo(), sequence, java.util.List.of("singleton")));
    }
}
