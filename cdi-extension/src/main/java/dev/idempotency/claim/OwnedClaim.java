package dev.idempotency.claim;

import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

import dev.idempotency.IdempotencyOutcome;
import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.exceptions.IdempotencyConflictException;
import dev.idempotency.internal.Messages;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.spi.support.TransactionGuard;

/**
 * An acquired claim, ended exactly once: completed with the outcome, or released so that a retry
 * runs again. Whoever ends it first wins; the others find it closed. Store failures while ending
 * it are logged, never thrown at the caller, whose answer is already decided.
 */
public class OwnedClaim {

    private static final Logger LOG = Logger.getLogger(OwnedClaim.class.getName());

    /**
     * {@code HELD}: an HTTP answer stored (or to be given back) in a transaction still running when
     * it was written; only that transaction's end ends the claim ({@link #hold}).
     */
    private enum State { OPEN, HELD, COMPLETED, RELEASED }

    private final IdempotencyStore store;
    private final IdempotencyPolicy policy;
    private final String key;
    private final String owner;
    private final EventPublisher events;
    private final InProgressWaits waits;
    /** The key of the transaction the work was marked executed (or its outcome stored) in, if it was, in one. */
    private volatile Object markedIn;
    private final ReleaseRetries retries;
    private final boolean http;
    private final AtomicReference<State> state = new AtomicReference<>(State.OPEN);
    private volatile boolean executed;
    /** Whether {@link #storeHeld} stored the answer in the transaction the claim is held for. */
    private volatile boolean storedWhileHeld;

    /**
     * @param store where the claim lives
     * @param policy the method's policy
     * @param key the scoped key
     * @param owner the owner token
     * @param events where the completion and the release are reported
     * @param waits the duplicates waiting on this node, woken when the claim ends
     * @param retries where a release that the store failed is tried again
     * @param http whether the claim serves an HTTP request
     */
    public OwnedClaim(IdempotencyStore store, IdempotencyPolicy policy, String key, String owner,
            EventPublisher events, InProgressWaits waits, ReleaseRetries retries, boolean http) {
        this.store = store;
        this.policy = policy;
        this.key = key;
        this.owner = owner;
        this.events = events;
        this.waits = waits;
        this.retries = retries;
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
     * @return whether {@link #markExecuted} recorded the work as committed, or
     *     {@link #completeInTransaction} stored its outcome in its transaction: the claim can then
     *     only be completed (releasing it would let a retry run the work twice), or released after
     *     that transaction rolled back
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
        if (state.compareAndSet(State.OPEN, State.COMPLETED)) {
            storeCompletion(outcome);
        }
    }

    /** Stores the outcome of a claim that this call just ended as completed. */
    private void storeCompletion(StoredOutcome outcome) {
        try {
            if (store.complete(key, owner, outcome, policy.ttl())) {
                events.fire(IdempotencyOutcome.COMPLETED, policy, key, http);
            } else {
                LOG.warning(Messages.ownershipLostOnComplete(policy.endpoint(), keyForLog()));
            }
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, Messages.storeFailedOnComplete(policy.endpoint(), keyForLog()), e);
        }
        waits.settled(key);
    }

    /**
     * Stores the outcome inside the caller's transaction, in a store that
     * {@link IdempotencyStore#joinsCallerTransaction joins it}: the outcome commits or rolls back
     * with the work, and nothing is left to write after the commit (when a small pool may have
     * no connection to spare). The claim stays open until the transaction ends:
     * {@link #completedWithCommit()} then, or {@link #releaseAfterRollback()}. Store failures are
     * thrown: the caller's transaction must then roll back, as it must when this returns {@code false}.
     *
     * @param outcome what retries get
     * @return {@code true} if stored (or nothing is open to store); {@code false} if the claim is
     *     no longer owned (the lease ran out and another caller took the key over)
     */
    public boolean completeInTransaction(StoredOutcome outcome) {
        if (!isOpen()) {
            return true;
        }
        if (!store.complete(key, owner, outcome, policy.ttl())) {
            LOG.warning(Messages.ownershipLostBeforeCommit(policy.endpoint(), keyForLog()));
            return false;
        }
        // committed with the work, the record can only stay: a release other than the rollback's keeps it
        executed = true;
        return true;
    }

    /** Ends the claim whose outcome was {@link #completeInTransaction stored in a transaction} that committed. */
    public void completedWithCommit() {
        if (state.compareAndSet(State.OPEN, State.COMPLETED)) {
            events.fire(IdempotencyOutcome.COMPLETED, policy, key, http);
            waits.settled(key);
        }
    }

    /**
     * Releases the claim after the transaction it ran in rolled back: nothing happened, even if
     * the work was {@link #markExecuted marked executed} or its outcome
     * {@link #completeInTransaction stored} (a store that joined the transaction undid that with
     * it; any other store is asked to drop its mark).
     *
     * @return whether this call released it
     */
    public boolean releaseAfterRollback() {
        executed = false;
        return release();
    }

    /**
     * Releases the claim after the transaction the method ran in rolled back, as
     * {@link #releaseAfterRollback()}; a claim whose work goes on after the method returned (an
     * asynchronous HTTP endpoint) is released only once it answered ({@link HttpClaim}).
     */
    public void releaseAfterRollbackOnceAnswered() {
        releaseAfterRollback();
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
        giveBackUnlessExecuted();
        return true;
    }

    /** Gives the key back in the store for a claim just released, unless its work committed. */
    private void giveBackUnlessExecuted() {
        if (executed) {
            // The work committed: the store keeps the record (retries are told the response was
            // lost) instead of letting one run it again.
            LOG.warning(Messages.responseLostAfterCommit(policy.endpoint(), keyForLog()));
            return;
        }
        releaseInStore();
    }

    /**
     * Closes the claim without storing an outcome or releasing the key: the transaction the work ran
     * in ended in a way its manager cannot tell (it may have committed), or part of the work
     * committed in a transaction of its own while the rest rolled back (a stage an asynchronous
     * bean completed, a method whose transaction then rolled back). What comes after (an HTTP
     * answer made of the commit's exception, the end of the request) then stores nothing: the
     * record stays as the store holds it, so that a retry is told the outcome is lost once a
     * committed mark's deadline passes, and never replays an answer that may not be the work's.
     */
    void leaveUnsettled() {
        leaveUnsettledFrom(State.OPEN);
    }

    private void leaveUnsettledFrom(State from) {
        if (state.get() != from) {
            return;
        }
        try {
            // The work may have committed: marked executed (again: a mark inside that transaction may
            // not have committed, and an asynchronous endpoint's work is never marked), so that no
            // retry takes the claim over after its lease and runs it a second time.
            markInStore();
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, Messages.storeFailedOnComplete(policy.endpoint(), keyForLog()), e);
        }
        if (state.compareAndSet(from, State.RELEASED)) {
            waits.settled(key);
        }
    }

    /**
     * Holds the claim for a transaction still running when its HTTP answer is written (an
     * {@code AsyncResponse} resumed inside a {@code @Transactional} method, a transaction spanning
     * the request), where the store {@link IdempotencyStore#joinsCallerTransaction joins it}: the
     * answer is stored in that transaction ({@link #storeHeld}) and commits or rolls back with the
     * work. A held claim is neither open nor ended: only the transaction's end
     * ({@link #heldTransactionEnded}) ends it, so neither a second answer of the same request (a
     * body that failed to serialise, written again as an error) nor the end of the request releases
     * a key whose answer the transaction may still commit.
     *
     * @return {@code false} if the claim was not open (ended, or held already): nothing to store
     */
    boolean hold() {
        return state.compareAndSet(State.OPEN, State.HELD);
    }

    /** Opens a {@link #hold held} claim again: no transaction will report its end after all. */
    void unhold() {
        state.compareAndSet(State.HELD, State.OPEN);
    }

    /**
     * Stores the answer of a {@link #hold held} claim in the running transaction. The answer goes
     * out whatever the store says, as outside a transaction: a refused completion (the key was
     * taken over) ends the claim; a failed one is logged, and the claim left to the transaction's
     * end (a commit then has it stored once more, after it).
     *
     * @param outcome the answer, as retries get it
     */
    void storeHeld(StoredOutcome outcome) {
        if (state.get() != State.HELD || storedWhileHeld) {
            return; // ended meanwhile (a rollback by the transaction's timeout), or stored
        }
        boolean stored;
        try {
            stored = store.complete(key, owner, outcome, policy.ttl());
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, Messages.storeFailedOnComplete(policy.endpoint(), keyForLog()), e);
            return;
        }
        if (!stored) {
            LOG.warning(Messages.ownershipLostOnComplete(policy.endpoint(), keyForLog()));
            if (state.compareAndSet(State.HELD, State.COMPLETED)) {
                waits.settled(key);
            }
            return;
        }
        storedWhileHeld = true;
    }

    /**
     * @param transaction a transaction's key
     * @return whether this claim's work was marked executed in that transaction (whose row it then
     *     holds until it ends)
     */
    boolean markedIn(Object transaction) {
        Object marked = markedIn;
        return executed && marked != null && marked.equals(transaction);
    }

    /**
     * Ends a claim {@link #hold held} for a transaction: completed with its
     * commit; given back with its rollback (which undid the stored answer), unless the work's mark
     * was committed by another transaction (the method's own, inside the one spanning the request):
     * then the record keeps it; an end its manager cannot tell leaves the claim unsettled. A commit
     * without the answer stored (its completion in the transaction failed) stores it after the
     * commit, so that the committed work is never run again after the lease.
     *
     * @param end how the transaction ended
     * @param transaction the key of the transaction that ended
     * @param outcome the answer
     */
    void heldTransactionEnded(TransactionGuard.End end, Object transaction, StoredOutcome outcome) {
        switch (end) {
            case COMMITTED -> {
                if (storedWhileHeld) {
                    if (state.compareAndSet(State.HELD, State.COMPLETED)) {
                        events.fire(IdempotencyOutcome.COMPLETED, policy, key, http);
                        waits.settled(key);
                    }
                } else if (state.compareAndSet(State.HELD, State.COMPLETED)) {
                    storeCompletion(outcome); // its completion failed in the transaction, twice
                }
            }
            case ROLLED_BACK -> releaseAfterRollbackOf(transaction, State.HELD);
            case UNKNOWN -> leaveUnsettledFrom(State.HELD);
        }
    }

    /** @param transaction the key of the transaction a mark (or a stored outcome) of this claim's work was made in */
    void markIn(Object transaction) {
        markedIn = transaction;
    }

    /**
     * Releases the claim after a transaction rolled back: as {@link #releaseAfterRollback()} when the
     * work's mark was made in that transaction (or none was made); else as {@link #release()}, which
     * keeps a mark another transaction committed (an answer written in a transaction spanning the
     * request, around a method that ran and committed in one of its own).
     *
     * @param transaction the key of the transaction that rolled back
     */
    void releaseAfterRollbackOf(Object transaction) {
        releaseAfterRollbackOf(transaction, State.OPEN);
    }

    /** As {@link #releaseAfterRollbackOf(Object)}, for a claim in the state {@code from} (open, or held). */
    private void releaseAfterRollbackOf(Object transaction, State from) {
        Object marked = markedIn;
        if (!(executed && marked != null && !marked.equals(transaction))) {
            executed = false; // what that transaction marked or stored, it undid
        }
        if (state.compareAndSet(from, State.RELEASED)) {
            giveBackUnlessExecuted();
        }
    }

    /** @return whether the store joins the caller's transaction (a mark then rolls back with it) */
    boolean storeJoinsCallerTransaction() {
        return store.joinsCallerTransaction();
    }

    /** @return whether the store marked the work executed (then so does this claim) */
    private boolean markInStore() {
        boolean marked;
        try {
            marked = markOnce();
        } catch (IdempotencyStoreException lost) {
            if (store.joinsCallerTransaction()) {
                throw lost; // the mark rolls back with the work: nothing to find out
            }
            marked = markAgainAfter(lost);
        }
        if (marked) {
            executed = true;
        }
        return marked;
    }

    /**
     * Asks a store outside the caller's transaction once more after its mark failed. The first mark
     * may have been applied with its answer lost (a timeout while this node stalled: the fault
     * campaign froze a node mid-mark); rolling back then would leave a mark behind work that never
     * committed, and a retry after the mark's lease would already have been told the response was
     * lost. A store answers a repeated mark of its owner's executed record as the first: marked.
     */
    private boolean markAgainAfter(IdempotencyStoreException lost) {
        try {
            boolean marked = markOnce();
            LOG.warning(Messages.markRepeated(policy.endpoint(), keyForLog(), marked, lost));
            return marked;
        } catch (RuntimeException again) {
            lost.addSuppressed(again);
            throw lost;
        }
    }

    /** @return whether the store marked this owner's claim executed: one call of the store's mark */
    private boolean markOnce() {
        return store.markExecuted(key, owner, policy.lease(), policy.ttl());
    }

    private void releaseInStore() {
        Runnable released = () -> events.fire(IdempotencyOutcome.RELEASED, policy, key, http);
        if (giveBack(store, policy, key, owner, waits, retries, released)) {
            released.run();
        }
    }

    /**
     * Gives a claim back and wakes the duplicates waiting on this node for its key. A store failure
     * is logged, not thrown (for callers whose answer is decided already), and the release is
     * then tried again in the background ({@link ReleaseRetries}).
     *
     * @param store where the claim lives
     * @param policy the method's policy
     * @param key the scoped key
     * @param owner the owner token
     * @param waits the duplicates waiting on this node
     * @param retries where a failed release is tried again
     * @param releasedLater what to do if a retry releases it
     * @return whether the store released it now
     */
    public static boolean giveBack(IdempotencyStore store, IdempotencyPolicy policy, String key, String owner,
            InProgressWaits waits, ReleaseRetries retries, Runnable releasedLater) {
        boolean released;
        try {
            released = store.release(key, owner);
        } catch (RuntimeException e) {
            boolean retried = retries.retry(store, policy, key, owner, () -> {
                waits.settled(key);
                releasedLater.run();
            });
            LOG.log(Level.SEVERE, Messages.storeFailedOnRelease(policy.endpoint(), ScopedKey.forLog(key), retried), e);
            released = false;
        }
        waits.settled(key);
        return released;
    }
}
