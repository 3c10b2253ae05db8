package dev.idempotency.infinispan;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Inject;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.RecordDetails;
import dev.idempotency.spi.StoredOutcome;

/**
 * The Infinispan store: keys claimed in a distributed cache shared by every application
 * instance, over Hot Rod. Present on the classpath, it replaces the in-memory store (an
 * {@code @Alternative} with priority {@link IdempotencyStore#STORE_MODULE_PRIORITY}).
 */
@Alternative
@Priority(IdempotencyStore.STORE_MODULE_PRIORITY)
@ApplicationScoped
public class InfinispanIdempotencyStore implements IdempotencyStore {

    @Inject
    InfinispanConnection connection;

    /** For CDI. */
    public InfinispanIdempotencyStore() {
    }

    /**
     * Outside a container (tests, tools).
     *
     * @param connection the store's connection
     */
    public InfinispanIdempotencyStore(InfinispanConnection connection) {
        this.connection = connection;
    }

    /** Runs one operation; after a failure the next one reconnects to the cache from scratch. */
    private <T> T call(Function<InfinispanRecords, T> operation) {
        try {
            return operation.apply(connection.records());
        } catch (IdempotencyStoreException e) {
            connection.reset();
            throw e;
        }
    }

    @Override
    public ClaimResult claim(String key, String fingerprint, Duration lease, Duration retention) {
        return call(records -> records.claim(key, fingerprint, lease, retention));
    }

    @Override
    public boolean complete(String key, String owner, StoredOutcome outcome, Duration retention) {
        return call(records -> records.complete(key, owner, outcome, retention));
    }

    @Override
    public boolean markExecuted(String key, String owner, Duration lease, Duration retention) {
        return call(records -> records.markExecuted(key, owner, lease, retention));
    }

    @Override
    public boolean release(String key, String owner) {
        return call(records -> records.release(key, owner));
    }

    @Override
    public Optional<IdempotencyRecord> find(String key) {
        return call(records -> records.find(key));
    }

    @Override
    public Optional<RecordDetails> inspect(String key) {
        return call(records -> records.inspect(key));
    }
}
