package dev.idempotency.it.resources;

import java.time.Duration;
import java.util.Optional;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;

import dev.idempotency.internal.InMemoryIdempotencyStore;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.StoredOutcome;

/**
 * An application-provided store (it wins over the default, as the SPI promises) that behaves like
 * the in-memory store until a test switches it "down": then every call fails like an unreachable
 * server would.
 */
@Alternative
@Priority(1000)
@ApplicationScoped
public class SwitchableStore implements IdempotencyStore {

    private final InMemoryIdempotencyStore delegate = new InMemoryIdempotencyStore(100_000, System::nanoTime);
    private volatile boolean down;

    public void down(boolean down) {
        this.down = down;
    }

    private void check() {
        if (down) {
            throw new IdempotencyStoreException("test store switched down");
        }
    }

    @Override
    public ClaimResult claim(String key, String fingerprint, Duration lease) {
        check();
        return delegate.claim(key, fingerprint, lease);
    }

    @Override
    public boolean complete(String key, String owner, StoredOutcome outcome, Duration retention) {
        check();
        return delegate.complete(key, owner, outcome, retention);
    }

    @Override
    public boolean release(String key, String owner) {
        check();
        return delegate.release(key, owner);
    }

    @Override
    public Optional<IdempotencyRecord> find(String key) {
        check();
        return delegate.find(key);
    }
}
