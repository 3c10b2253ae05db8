package dev.idempotency.jpa.testing;

import java.util.Optional;
import java.util.function.Function;

import javax.sql.DataSource;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.EntityTransaction;

import dev.idempotency.jpa.RecordTransactions;

/**
 * Resource-local transactions of a Java SE persistence unit: no caller transaction, ever. For
 * tests and benchmarks outside a container.
 */
public final class ResourceLocalTransactions implements RecordTransactions {

    private final EntityManagerFactory factory;
    private final Optional<DataSource> autoCommit;

    /** @param factory the unit whose entity managers do the work */
    public ResourceLocalTransactions(EntityManagerFactory factory) {
        this(factory, null);
    }

    /**
     * @param factory the unit whose entity managers do the work
     * @param autoCommit the same database as a datasource, for first claims committed on their own
     *     (as a Jakarta EE server's store has on a thread without a transaction), or null for none
     */
    public ResourceLocalTransactions(EntityManagerFactory factory, DataSource autoCommit) {
        this.factory = factory;
        this.autoCommit = Optional.ofNullable(autoCommit);
    }

    @Override
    public <T> T inNewTransaction(Function<EntityManager, T> work) {
        EntityManager em = factory.createEntityManager();
        EntityTransaction transaction = em.getTransaction();
        try {
            transaction.begin();
            T result = work.apply(em);
            transaction.commit();
            return result;
        } finally {
            if (transaction.isActive()) {
                transaction.rollback();
            }
            em.close();
        }
    }

    @Override
    public <T> T inCallerTransaction(Function<EntityManager, T> work) {
        return inNewTransaction(work);
    }

    @Override
    public Optional<DataSource> autoCommitDataSource() {
        return autoCommit;
    }
}
