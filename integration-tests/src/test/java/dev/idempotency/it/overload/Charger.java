package dev.idempotency.it.overload;

import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.Idempotent;
import dev.idempotency.sample.Payment;
import dev.idempotency.sample.PaymentLedger;

/**
 * Pays an order once, in its caller's transaction: its claim runs in a transaction of the store's
 * own, on a connection of its own, while the caller's transaction holds one.
 */
@ApplicationScoped
public class Charger {

    @Inject
    PaymentLedger ledger;

    @Idempotent(name = "overload.charge")
    public String charge(@IdempotencyKey String orderId) throws InterruptedException {
        ledger.add(new Payment(UUID.randomUUID().toString(), orderId, 100, "EUR", "anonymous"));
        Thread.sleep(300);
        return orderId;
    }
}
