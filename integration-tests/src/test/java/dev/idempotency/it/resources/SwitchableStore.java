package dev.idempotency.it.resources;

import java.time.Duration;
import java.util.Optional;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.store.InMemoryIdempotencyStore;
import dev.idempotency.store.TieredIdempotencyStore;

/**
 * An application-provided store (it wins over the store modules, as the SPI promises) that is
 * the deployment's store module (JPA on PostgreSQL, Infinispan, Redis, or the tiered store over
 * Infinispan and JPA), or the in-memory store where the deployment has none, until a test switches
 * it "down": then every call fails like an unreachable server would.
 */
@Alternative
@Priority(1000)
@ApplicationScoped
public class SwitchableStore implements IdempotencyStore {

    @Inject
    BeanManager beans;

    private IdempotencyStore delegate;

    private volatile boolean down;

    public void down(boolean down) {
        this.down = down;
    }

    /** The store module in the deployment, whichever it is; the in-memory store without one. */
    @PostConstruct
    void findModuleStore() {
        Bean<?> module = beans.getBeans(IdempotencyStore.class, Any.Literal.INSTANCE).stream()
                .filter(bean -> bean.getBeanClass() != SwitchableStore.class)
                // with both modules in the deployment, the tiered store over them; the in-memory store last
                .min(java.util.Comparator.comparing((Bean<?> bean) -> bean.getBeanClass() != TieredIdempotencyStore.class)
                        .thenComparing(bean -> bean.getBeanClass() == InMemoryIdempotencyStore.class))
                .orElseThrow(() -> new IllegalStateException("no store in the deployment"));
        delegate = (IdempotencyStore) beans.getReference(module, IdempotencyStore.class, beans.createCreationalContext(module));
    }

    private void check() {
        if (down) {
            throw new IdempotencyStoreException("test store switched down");
        }
    }

    @Override
    public ClaimResult claim(String key, String fingerprint, Duration lease, Duration retention) {
        check();
        return delegate.claim(key, fingerprint, lease, retention);
    }

    @Override
    public boolean joinsCallerTransaction() {
        return delegate.joinsCallerTransaction();
    }

    @Override
    public boolean keepsRecordsInThisJvm() {
        return delegate.keepsRecordsInThisJvm();
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
