package dev.idempotency.store;

import java.time.Duration;
import java.util.Optional;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.RecordDetails;
import dev.idempotency.spi.StoredOutcome;

/** A store that hands every call to another; tests override the call they break. */
public class DelegatingStore implements IdempotencyStore {

    /** The store every call goes to. */
    protected final IdempotencyStore store;

    /** @param store the store every call goes to */
    public DelegatingStore(IdempotencyStore store) {
        this.store = store;
    }

    @Override
    public ClaimResult claim(String key, String fingerprint, Duration lease, Duration retention) {
        return store.claim(key, fingerprint, lease, retention);
    }

    @Override
    public boolean complete(String key, String owner, StoredOutcome outcome, Duration retention) {
        return store.complete(key, owner, outcome, retention);
    }

    @Override
    public boolean release(String key, String owner) {
        return store.release(key, owner);
    }

    @Override
    public Optional<IdempotencyRecord> find(String key) {
        return store.find(key);
    }

    @Override
    public Optional<RecordDetails> inspect(String key) {
        return store.inspect(key);
    }
}
