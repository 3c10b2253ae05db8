package dev.idempotency.it.resources;

import java.time.Duration;
import java.util.Optional;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Inject;

import dev.idempotency.jpa.JpaIdempotencyStore;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.StoredOutcome;

/**
 * An application-provided store (it wins over the store modules, as the SPI promises) that is
 * the sample's JPA store (on PostgreSQL) until a test switches it "down": then every call fails
 * like an unreachable server would.
 */
@Alternative
@Priority(1000)
@ApplicationScoped
public class SwitchableStore implements IdempotencyStore {

    @Inject
    JpaIdempotencyStore delegate;

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
    public boolean markExecuted(String key, String owner, Duration lease, Duration retention) {
        check();
        return delegate.markExecuted(key, owner, lease, retention);
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
