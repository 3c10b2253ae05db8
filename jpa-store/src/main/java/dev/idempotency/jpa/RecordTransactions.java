package dev.idempotency.jpa;

import java.util.Optional;
import java.util.function.Function;

import javax.sql.DataSource;

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

    /**
     * The store's datasource, for one statement that commits on its own (auto-commit): a first
     * claim's insert or a completion, each then a single round trip with no transaction manager,
     * entity manager or unit of work around it, as an unannotated method's plain JDBC would be.
     * Offered only where that is the same as a transaction of the store's own: on a thread known
     * to have no transaction, whose connection the pool hands out unenlisted.
     *
     * @return the datasource, or empty where the work must run in {@link #inNewTransaction}
     *     (the thread has a transaction, or the store's datasource is not known)
     */
    default Optional<DataSource> autoCommitDataSource() {
        return Optional.empty();
    }
}
