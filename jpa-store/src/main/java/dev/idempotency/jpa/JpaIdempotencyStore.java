package dev.idempotency.jpa;

import java.time.Duration;
import java.util.Optional;
import java.util.logging.Logger;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Inject;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
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

    private static final Logger LOG = Logger.getLogger(JpaIdempotencyStore.class.getName());

    @Inject
    JtaRecordTransactions transactions;

    private JpaRecords records;
    /** Whether the datasource undoes a rolled-back transaction; null until probed. */
    private volatile Boolean joinsTransactions;

    /** For CDI. */
    public JpaIdempotencyStore() {
    }

    /**
     * Outside a container (tests, tools).
     *
     * @param records the store's logic on some transactions
     */
    JpaIdempotencyStore(JpaRecords records) {
        this.records = records;
    }

    @PostConstruct
    void init() {
        records = new JpaRecords(transactions);
    }

    /**
     * @return whether records written in the caller's transaction roll back with it: probed once,
     *     on first use ({@link JpaRecords#rollsBack()}; at deployment the persistence units may
     *     not be usable yet)
     */
    boolean joinsTransactions() {
        Boolean known = joinsTransactions;
        if (known == null) {
            known = records.rollsBack();
            joinsTransactions = known;
            if (!known) {
                String unit = transactions == null ? "the given persistence unit" : transactions.unitDescription();
                LOG.warning("IDEMP0508: the idempotency store's datasource (" + unit + ") did not undo a rolled-back"
                        + " JTA transaction: a probe row survived the rollback. Keys are still claimed once, but"
                        + " nothing written through it commits atomically, neither the records nor the business rows."
                        + " Point the store at a transactional datasource by producing an @IdempotencyPersistence"
                        + " EntityManager (see the README)");
            }
        }
        return known;
    }

    @Override
    public ClaimResult claim(String key, String fingerprint, Duration lease) {
        return records.claim(key, fingerprint, lease);
    }

    @Override
    public boolean complete(String key, String owner, StoredOutcome outcome, Duration retention) {
        return records.complete(key, owner, outcome, retention);
    }

    @Override
    public boolean markExecuted(String key, String owner, Duration lease, Duration retention) {
        joinsTransactions(); // warns once if the mark cannot roll back with the work (the owner then releases it)
        return records.markExecuted(key, owner, lease, retention);
    }

    @Override
    public boolean release(String key, String owner) {
        return records.release(key, owner);
    }

    @Override
    public Optional<IdempotencyRecord> find(String key) {
        return records.find(key);
    }
}
