package dev.idempotency.jpa;

import java.util.function.Function;

import jakarta.persistence.EntityManager;

/**
 * Where the JPA store's work runs. In a Jakarta EE server, JTA ({@link JtaRecordTransactions});
 * in tests, resource-local transactions of a Java SE persistence unit.
 */
public interface RecordTransactions {

    /**
     * Runs work in a transaction of its own, committed when the work returns, whatever the
     * caller's transaction does: claims and releases, so that a duplicate sees a claim at once.
     *
     * @param work the work, given the entity manager of that transaction
     * @param <T> its result
     * @return its result
     */
    <T> T inNewTransaction(Function<EntityManager, T> work);

    /**
     * Runs work in the caller's transaction when there is one (so that it commits or rolls
     * back with the caller's business rows), else in a transaction of its own: completions.
     *
     * @param work the work
     * @param <T> its result
     * @return its result
     */
    <T> T inCallerTransaction(Function<EntityManager, T> work);
}
