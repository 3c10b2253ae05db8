package dev.idempotency.it.consumers;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.Transactional;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.Idempotent;

/** A transactional consumer whose transaction may roll back after the method returned. */
@ApplicationScoped
public class TransactionalConsumer {

    @Inject
    SideEffects effects;

    @Resource
    TransactionSynchronizationRegistry transactions;

    @Idempotent
    @Transactional
    public int charge(@IdempotencyKey String key, boolean rollback) {
        int sequence = effects.record("transactional", 0);
        if (rollback) {
            transactions.setRollbackOnly();
        }
        return sequence;
    }
}
