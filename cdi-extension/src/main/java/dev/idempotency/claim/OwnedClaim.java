package dev.idempotency.claim;

import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

import dev.idempotency.IdempotencyConflictException;
import dev.idempotency.IdempotencyOutcome;
import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.internal.Messages;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.spi.support.TransactionGuard;

/**
 * An acquired claim, ended exactly once: completed with the outcome, or released so that a retry
 * runs again. Whoever ends it first wins; the others find it closed. Store failures while ending
 * it are logged, never thrown at the caller, whose answer is already decided.
 */
public class OwnedClaim {

    private static final Logger LOG = Logger.getLogger(OwnedClaim.class.getName());

    private enum State { OPEN, COMPLETED, RELEASED }

    private final IdempotencyStore store;
    private final IdempotencyPolicy policy;
    private final String key;
    private final String owner;
    private final OutcomeEvents events;
    private final boolean http;
    private final AtomicReference<State> state = new AtomicReference<>(State.OPEN);
    private volatile boolean executed;

    /**
     * @param store where the claim lives
     * @param policy the method's policy
     * @param key the scoped key
     * @param owner the owner token
     * @param events where the completion and the release are reported
     * @param http whether the claim serves an HTTP request
     */
    public OwnedClaim(IdempotencyStore store, IdempotencyPolicy policy, String key, String owner,
            OutcomeEvents events, boolean http) {
        this.store = store;
        this.policy = policy;
        this.key = key;
        this.owner = owner;
        this.events = events;
        this.http = http;
    }

    /** @return the method's policy */
    public IdempotencyPolicy policy() {
        return policy;
    }

    /** @return whether the claim is neither completed nor released yet */
    public boolean isOpen() {
        return state.get() == State.OPEN;
    }

    /** @return the scoped key, shortened for logs */
    public String keyForLog() {
        return ScopedKey.forLog(key);
    }

    /**
     * Records, inside the caller's transaction, that the work committed with it (see
     * {@link IdempotencyStore#markExecuted}). Store failures are thrown: the caller's transaction
     * must then roll back, as it must when this returns {@code false}.
     *
     * @return {@code true} if marked (or nothing is open to mark); {@code false} if the claim is
     *     no longer owned (the lease ran out and another caller took the key over)
     */
    public boolean markExecuted() {
        if (!isOpen()) {
            return true;
        }
        if (!markInStore()) {
            LOG.warning(Messages.ownershipLostBeforeCommit(policy.endpoint(), keyForLog()));
            return false;
        }
        return true;
    }

    /**
     * @return what the caller of a method whose key was taken over while it ran is told: its
     *     transaction was marked rollback-only, and a retry got (or gets) the key
     */
    public IdempotencyConflictException takenOver() {
        return new IdempotencyConflictException(Messages.ownershipLostBeforeCommit(policy.endpoint(), keyForLog()));
    }

    /**
     * @param failure what the method threw
     * @return {@link #takenOver()}, with the method's own failure kept as suppressed
     */
    public IdempotencyConflictException takenOver(Throwable failure) {
        IdempotencyConflictException lost = takenOver();
        lost.addSuppressed(failure);
        return lost;
    }

    /**
     * @return whether {@link #markExecuted} recorded the work as committed: the claim can then only
     *     be completed (releasing it would let a retry run the work twice)
     */
    public boolean executed() {
        return executed;
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
            if (store.complete(key, owner, outcome, policy.ttl())) {
                events.fire(IdempotencyOutcome.COMPLETED, policy, key, http);
            } else {
                LOG.warning(Messages.ownershipLostOnComplete(policy.endpoint(), keyForLog()));
            }
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, Messages.storeFailedOnComplete(policy.endpoint(), keyForLog()), e);
        }
    }

    /**
     * Releases the claim after the transaction it ran in rolled back: nothing happened, even if
     * the work was {@link #markExecuted marked executed} (a store that joined the transaction
     * undid the mark with it; any other store is asked to drop it).
     *
     * @return whether this call released it
     */
    public boolean releaseAfterRollback() {
        executed = false;
        return release();
    }

    /**
     * Releases the claim, if still open, so that a retry runs again; unless its work was marked
     * executed in a transaction that committed, which only a completion may end.
     *
     * @return whether this call released it
     */
    public boolean release() {
        if (!state.compareAndSet(State.OPEN, State.RELEASED)) {
            return false;
        }
        if (executed) {
            // The work committed: the store keeps the record (retries are told the response was
            // lost) instead of letting one run it again.
            LOG.warning(Messages.responseLostAfterCommit(policy.endpoint(), keyForLog()));
            return true;
        }
        releaseInStore();
        return true;
    }

    /**
     * Ends the claim of a method that threw. Without a transaction it is released at once. In a
     * transaction, nothing is decided until it ends (a store's transaction of its own must not
     * begin inside the caller's: on Payara, a {@code REQUIRES_NEW} begun while the caller's
     * transaction holds flushed writes on a non-XA pool enlists that connection and commits the
     * caller's writes): a rollback releases the key; a commit despite the exception (a checked
     * exception under {@code @Transactional}, {@code dontRollbackOn}) means the method's writes
     * are in, so the work never runs again. For that, the work is marked executed inside the
     * transaction now, as on success: the mark commits (or rolls back) with the writes, and an
     * owner whose key was taken over meanwhile finds out before its writes can commit. After the
     * commit the claim stays open, executed: an HTTP answer made of the exception (a mapper's
     * {@code 4xx}) is then stored for the retries; else the record reports the outcome lost. When
     * the mark is refused (taken over) or the store fails, the transaction is marked rollback-only.
     *
     * @param transactions the caller's transaction, if any
     * @return {@code false} if the key was taken over while the method ran: its transaction must
     *     not commit (it is marked rollback-only), and the caller should say so
     */
    public boolean releaseAfterFailure(TransactionGuard transactions) {
        boolean markable = transactions.active();
        boolean deferred = transactions.whenTransactionEnds(committed -> {
            if (!committed) {
                releaseAfterRollback();
            }
        });
        if (!deferred) {
            release();
            return true;
        }
        // rollback-only already (not markable): it ends with the rollback
        return !markable || markExecutedWithCommit(transactions);
    }

    /**
     * Marks the work executed as part of the caller's active transaction, for a method whose
     * outcome is not known yet (a failure its transaction may commit despite, a stage still
     * running): at once where the store joins the transaction (the mark rolls back with it), else
     * just before the transaction commits, so that a rollback leaves no mark behind. A mark refused
     * (the key was taken over) or failed makes the transaction roll back.
     *
     * @param transactions the caller's active transaction
     * @return {@code false} if the key was found taken over at once: the transaction is marked
     *     rollback-only, and the caller should say so
     */
    public boolean markExecutedWithCommit(TransactionGuard transactions) {
        if (!store.joinsCallerTransaction()) {
            transactions.beforeCommit(this::markQuietly);
            return true;
        }
        try {
            if (markExecuted()) {
                return true;
            }
            transactions.setRollbackOnly();
            return false;
        } catch (RuntimeException e) {
            // Not fenced: committing the writes could let a retry run them twice.
            LOG.log(Level.SEVERE, Messages.storeFailedOnComplete(policy.endpoint(), keyForLog()), e);
            transactions.setRollbackOnly();
            return true;
        }
    }

    /** @return whether the work is marked executed; a store failure is logged and counts as not */
    private boolean markQuietly() {
        try {
            return markExecuted();
        } catch (RuntimeException e) {
            // Not fenced: committing the writes could let a retry run them twice.
            LOG.log(Level.SEVERE, Messages.storeFailedOnComplete(policy.endpoint(), keyForLog()), e);
            return false;
        }
    }

    /** @return whether the store marked the work executed (then so does this claim) */
    private boolean markInStore() {
        boolean marked = store.markExecuted(key, owner, policy.lease(), policy.ttl());
        if (marked) {
            executed = true;
        }
        return marked;
    }

    private void releaseInStore() {
        if (releaseQuietly(store, policy, key, owner)) {
            events.fire(IdempotencyOutcome.RELEASED, policy, key, http);
        }
    }

    /**
     * Gives a claim back, logging instead of throwing when the store fails (the claim then lapses
     * with its lease): for callers whose answer is decided already.
     *
     * @param store where the claim lives
     * @param policy the method's policy
     * @param key the scoped key
     * @param owner the owner token
     * @return whether the store released it
     */
    public static boolean releaseQuietly(IdempotencyStore store, IdempotencyPolicy policy, String key, String owner) {
        try {
            return store.release(key, owner);
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, Messages.storeFailedOnRelease(policy.endpoint(), ScopedKey.forLog(key)), e);
            return false;
        }
    }
}
