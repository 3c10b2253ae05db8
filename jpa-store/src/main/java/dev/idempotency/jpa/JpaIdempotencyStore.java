package dev.idempotency.jpa;

import java.time.Duration;
import java.util.Optional;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Inject;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.RecordDetails;
import dev.idempotency.spi.StoredOutcome;

/**
 * The JPA store: keys claimed in the {@code idempotency_record} table of a relational database.
 * Present on the classpath, it replaces the in-memory store (an {@code @Alternative} with
 * priority {@link IdempotencyStore#STORE_MODULE_PRIORITY}); several application nodes sharing
 * the database share the keys.
 */
@Alternative
@Priority(IdempotencyStore.STORE_MODULE_PRIORITY)
@ApplicationScoped
public class JpaIdempotencyStore implements IdempotencyStore {

    @Inject
    SeparateRecordTransactions transactions;

    private JpaRecords records;

    /** For CDI. */
    public JpaIdempotencyStore() {
    }

    /**
     * Outside a container (tests, tools, benchmarks).
     *
     * @param records the store's logic on some transactions
     */
    public JpaIdempotencyStore(JpaRecords records) {
        this.records = records;
    }

    @PostConstruct
    void init() {
        records = new JpaRecords(transactions);
    }

    @Override
    public ClaimResult claim(String key, String fingerprint, Duration lease, Duration retention) {
        return records.claim(key, fingerprint, lease, retention);
    }

    @Override
    public boolean complete(String key, String owner, StoredOutcome outcome, Duration retention) {
        return records.complete(key, owner, outcome, retention);
    }

    /**
     * {@inheritDoc}
     *
     * <p>On the application's entity manager ({@link IdempotencyPersistence}) the caller's pending
     * changes are flushed first: when that flush fails (a constraint of the application's rows),
     * the provider's {@code PersistenceException} is thrown as it is, not an
     * {@link dev.idempotency.spi.IdempotencyStoreException}; see {@link JpaRecords#markExecuted}.
     */
    @Override
    public boolean markExecuted(String key, String owner, Duration lease, Duration retention) {
        return records.markExecuted(key, owner, lease, retention);
    }

    @Override
    public boolean release(String key, String owner) {
        return records.release(key, owner);
    }

    /**
     * @return {@code true}: {@link #markExecuted} and {@link #complete} join the caller's
     *     transaction, with the business rows
     */
    @Override
    public boolean joinsCallerTransaction() {
        return true;
    }

    @Override
    public Optional<IdempotencyRecord> find(String key) {
        return records.find(key);
    }

    @Override
    public Optional<RecordDetails> inspect(String key) {
        return records.inspect(key);
    }
}
