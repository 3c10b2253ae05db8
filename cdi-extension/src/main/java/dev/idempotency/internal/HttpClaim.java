package dev.idempotency.internal;

import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.StoredOutcome;

/**
 * A claim acquired for one HTTP request, ended exactly once: completed with the outcome, or
 * released so that a retry runs again. Whoever ends it first (the response filter, the writer
 * interceptor, the CDI interceptor on an exception, the end of the request) wins; the others
 * find it closed. Store failures while ending it are logged, never thrown at the client, whose
 * response is already decided.
 */
public final class HttpClaim {

    private static final Logger LOG = Logger.getLogger(HttpClaim.class.getName());

    private enum State { OPEN, COMPLETED, RELEASED }

    private final IdempotencyStore store;
    private final IdempotencyPolicy policy;
    private final Method resourceMethod;
    private final boolean asyncEndpoint;
    private final String key;
    private final String owner;
    private final AtomicReference<State> state = new AtomicReference<>(State.OPEN);
    private volatile int status;
    private volatile boolean entered;

    /**
     * @param store where the claim lives
     * @param policy the endpoint's policy
     * @param resourceMethod the resource method that runs under the claim
     * @param asyncEndpoint whether the method answers asynchronously
     * @param key the scoped key
     * @param owner the owner token
     */
    public HttpClaim(IdempotencyStore store, IdempotencyPolicy policy, Method resourceMethod, boolean asyncEndpoint,
            String key, String owner) {
        this.store = store;
        this.policy = policy;
        this.resourceMethod = resourceMethod;
        this.asyncEndpoint = asyncEndpoint;
        this.key = key;
        this.owner = owner;
    }

    /** @return the endpoint's policy */
    public IdempotencyPolicy policy() {
        return policy;
    }

    /** @return the resource method that runs under this claim */
    public Method resourceMethod() {
        return resourceMethod;
    }

    /** @return whether the endpoint answers asynchronously (the request outlives the method call) */
    public boolean asyncEndpoint() {
        return asyncEndpoint;
    }

    /** @return whether the claim is neither completed nor released yet */
    public boolean isOpen() {
        return state.get() == State.OPEN;
    }

    /** Notes that the resource method was entered (its parameters were read and it began). */
    public void markEntered() {
        entered = true;
    }

    /** @return whether the resource method was entered */
    public boolean entered() {
        return entered;
    }

    /** @return the response status noted by the response filter */
    public int status() {
        return status;
    }

    /** @param status the response status, noted until the body has been written */
    public void status(int status) {
        this.status = status;
    }

    /** @return the scoped key, shortened for logs */
    public String keyForLog() {
        return ScopedKey.forLog(key);
    }

    /**
     * Stores the outcome, if the claim is still open.
     *
     * @param outcome what retries get
     */
    public void complete(StoredOutcome outcome) {
        if (!state.compareAndSet(State.OPEN, State.COMPLETED)) {
            return;
        }
        try {
            if (!store.complete(key, owner, outcome, policy.ttl())) {
                LOG.warning(Messages.ownershipLostOnComplete(policy.endpoint(), keyForLog()));
            }
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, Messages.storeFailedOnComplete(policy.endpoint(), keyForLog()), e);
        }
    }

    /**
     * Releases the claim, if still open, so that a retry runs again.
     *
     * @return whether this call released it
     */
    public boolean release() {
        if (!state.compareAndSet(State.OPEN, State.RELEASED)) {
            return false;
        }
        try {
            store.release(key, owner);
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, Messages.storeFailedOnRelease(policy.endpoint(), keyForLog()), e);
        }
        return true;
    }
}
