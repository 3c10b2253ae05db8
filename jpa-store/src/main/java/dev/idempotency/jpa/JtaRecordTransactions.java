package dev.idempotency.jpa;

import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;

/**
 * JTA transactions around the {@code idempotency} persistence unit (this jar's
 * {@code persistence.xml}, on the server's default datasource).
 */
@ApplicationScoped
public class JtaRecordTransactions implements RecordTransactions {

    @PersistenceContext(unitName = "idempotency")
    EntityManager entityManager;

    @Override
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public <T> T inNewTransaction(Function<EntityManager, T> work) {
        return work.apply(entityManager);
    }

    @Override
    @Transactional(Transactional.TxType.REQUIRED)
    public <T> T inCallerTransaction(Function<EntityManager, T> work) {
        return work.apply(entityManager);
    }
}
