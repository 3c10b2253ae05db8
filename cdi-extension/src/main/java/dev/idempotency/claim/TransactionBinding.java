package dev.idempotency.claim;

import java.util.concurrent.CompletionStage;
import java.util.logging.Level;
import java.util.logging.Logger;

import dev.idempotency.internal.Messages;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.spi.support.TransactionGuard;

/**
 * The rules that tie a claim to the caller's JTA transaction, in one place for the HTTP and the
 * non-HTTP path: the work counts only once its transaction committed; a rollback releases the
 * key; work that commits is first marked executed inside the transaction (or, where the store
 * joins the transaction and the outcome is known, its outcome stored in it), fenced, so that an
 * owner whose key was taken over (its lease ran out) can never commit, and a node stopping
 * between the commit and the stored outcome never lets a retry run the work again.
 */
public final class TransactionBinding {

    private static final Logger LOG = Logger.getLogger(TransactionBinding.class.getName());

    /** The claimed work: the intercepted method. */
    @FunctionalInterface
    public interface Work {
        /**
         * @return the method's result
         * @throws Exception whatever the method throws
         */
        Object run() throws Exception;
    }

    private final TransactionGuard transactions;

    /** @param transactions the guard over the caller's transaction */
    public TransactionBinding(TransactionGuard transactions) {
        this.transactions = transactions;
    }

    /** @return the guard over the caller's transaction */
    public TransactionGuard transactions() {
        return transactions;
    }

    /**
     * Runs the work under the claim. When it throws, the claim ends as
     * {@link #releaseAfterFailure} says, and the failure is thrown on unchanged; or, when the key
     * was taken over meanwhile, as {@link OwnedClaim#takenOver(Throwable)}.
     *
     * @param claim the acquired claim
     * @param work the claimed work
     * @return the work's result
     * @throws Exception what the work threw
     */
    public Object run(OwnedClaim claim, Work work) throws Exception {
        try {
            return work.run();
        } catch (Exception | Error e) {
            if (!releaseAfterFailure(claim)) {
                throw claim.takenOver(e);
            }
            throw e;
        }
    }

    /**
     * Binds the claim to the end of the transaction the work returned in: a rollback releases
     * it, a commit runs {@code onCommit}; an end the transaction manager cannot tell does neither
     * (the work may have committed: it must never run again). With {@code markNow}, the work is marked executed inside
     * the active transaction now; if the key was taken over, the transaction is marked
     * rollback-only and {@link OwnedClaim#takenOver()} thrown; if the store failed, the
     * transaction is marked rollback-only and the store's exception thrown.
     *
     * @param claim the claim whose work returned
     * @param markNow whether the work is done (not an asynchronous part still running, not an
     *     answer that releases the claim)
     * @param onCommit what to do once the transaction committed, or {@code null} for nothing (the
     *     HTTP response is stored by the response side)
     * @return {@code true} if a transaction reports its end; {@code false} if there is none (the
     *     caller ends the claim itself; {@code onCommit} is not run)
     */
    public boolean bind(OwnedClaim claim, boolean markNow, Runnable onCommit) {
        boolean active = transactions.active();
        boolean deferred = endWithTransaction(claim, onCommit, true);
        if (deferred && active && markNow) {
            boolean marked;
            try {
                marked = markInThisTransaction(claim);
            } catch (RuntimeException e) {
                // Not fenced: a caller that catches this (a batch going on with its other rows) must
                // not commit the writes without the mark, or a retry after the lease runs them twice.
                transactions.setRollbackOnly();
                throw e;
            }
            if (!marked) {
                transactions.setRollbackOnly();
                throw claim.takenOver();
            }
        }
        return deferred;
    }

    /**
     * @param onCommit what to do once the transaction committed, or {@code null} for nothing
     * @param workMayGoOn whether work may go on after the method returned (an asynchronous
     *     endpoint's that returned): a rollback then releases the claim only once it answered; a
     *     failure's work is over
     * @return whether a transaction reports its end: a rollback then releases the claim
     */
    private boolean endWithTransaction(OwnedClaim claim, Runnable onCommit, boolean workMayGoOn) {
        return transactions.whenTransactionEnds(end -> {
            switch (end) {
                case ROLLED_BACK -> {
                    if (workMayGoOn) {
                        claim.releaseAfterRollbackOnceAnswered();
                    } else {
                        claim.releaseAfterRollback();
                    }
                }
                case COMMITTED -> {
                    if (onCommit != null) {
                        onCommit.run();
                    }
                }
                // It may have committed: never released, and no answer made after it (an HTTP
                // response) is stored as the work's; the store keeps the work's mark (a retry is
                // told the outcome is lost).
                case UNKNOWN -> {
                    LOG.warning(Messages.transactionOutcomeUnknown(claim.policy().endpoint(), claim.keyForLog()));
                    claim.leaveUnsettled();
                }
            }
        });
    }

    /**
     * Ends the claim of work that returned its value: at once without a transaction; in one, as
     * the transaction ends. Where the store {@link OwnedClaim#storeJoinsCallerTransaction joins the
     * transaction}, the outcome is stored in it now, fenced like a mark (an owner whose key was
     * taken over finds out before its writes can commit): it commits or rolls back with the work,
     * and the commit leaves nothing to write (a completion after it would need a connection of its
     * own while the caller's is still held: with every connection of the pool held so, the
     * completions waited for each other). A rollback releases the key. For any other store this
     * is {@link #bind bind(claim, true, complete)}: marked executed in the transaction, the
     * outcome stored once it committed.
     *
     * @param claim the claim whose work returned
     * @param outcome what retries get
     * @return {@code true} if a transaction reports its end; {@code false} if there is none (the
     *     caller completes the claim itself)
     * @throws dev.idempotency.exceptions.IdempotencyConflictException when the key was taken over:
     *     the transaction is marked rollback-only
     */
    public boolean completeWithCommit(OwnedClaim claim, StoredOutcome outcome) {
        if (!claim.storeJoinsCallerTransaction()) {
            return bind(claim, true, () -> claim.complete(outcome));
        }
        boolean active = transactions.active();
        boolean deferred = endWithTransaction(claim, claim::completedWithCommit, true);
        if (deferred && active) {
            boolean stored;
            try {
                stored = claim.completeInTransaction(outcome);
            } catch (RuntimeException e) {
                transactions.setRollbackOnly(); // not fenced: the writes must not commit without it
                throw e;
            }
            if (!stored) {
                transactions.setRollbackOnly();
                throw claim.takenOver();
            }
            claim.markIn(transactions.transactionKey());
        }
        return deferred;
    }

    /**
     * Stores an HTTP answer as the claim's outcome: at once, unless it is written while the work's
     * transaction is still running (an {@code AsyncResponse} resumed inside the method, a transaction
     * that spans the request). Then, where the store does not join that transaction, it is stored
     * only once the transaction committed; where it does, it is stored in it and the claim ends with
     * it. Either way a rollback releases the key (the work never happened, so its answer must never
     * be replayed), and an end the transaction manager cannot tell leaves the claim unsettled.
     * Meanwhile retries are told the request is in progress.
     *
     * @param claim the request's claim
     * @param outcome the answer, as retries get it
     */
    public void storeWhenCommitted(OwnedClaim claim, StoredOutcome outcome) {
        // read now: a mark made later in this transaction (before its commit) is undone by its rollback
        Object running = transactions.transactionKey();
        if (claim.storeJoinsCallerTransaction()) {
            storeInRunningTransaction(claim, outcome, running);
            return;
        }
        if (!transactions.whenTransactionEnds(end -> {
            switch (end) {
                case COMMITTED -> claim.complete(outcome);
                // a mark another transaction committed (the method's own, inside one spanning the
                // request) stays: only what this one did is undone
                case ROLLED_BACK -> claim.releaseAfterRollbackOf(running);
                case UNKNOWN -> claim.leaveUnsettled();
            }
        })) {
            // No transaction is running: the method's ended before its answer was written.
            claim.complete(outcome);
        }
    }

    /**
     * Where the store joins the caller's transaction: an answer written while one is active is
     * stored in it, and the claim held until it ends ({@link OwnedClaim#hold}): completed with its
     * commit, given back with its rollback. A completion that fails there and does not make the
     * transaction roll back (most failures do) is made once more after the commit. A
     * transaction that will roll back (marked rollback-only, or rolling back under a timeout's
     * reaper) gets nothing stored, and the claim is held for its rollback too; except where the
     * work was marked in that very transaction: the mark holds the record's row until the
     * rollback, and a release now (Narayana takes no synchronization on a rollback-only
     * transaction and reports its rollback at once) would wait for that row; the claim is then left
     * open to the method's own transaction binding, which releases it once the transaction rolled
     * back. Without a transaction running (none, or one that ended without rolling back, or one
     * committing) the answer is stored at once.
     */
    private void storeInRunningTransaction(OwnedClaim claim, StoredOutcome outcome, Object running) {
        boolean active = transactions.active();
        boolean rollingBack = transactions.markedRollbackOnly() || transactions.rolledBack();
        if (!active && !rollingBack) {
            claim.complete(outcome);
            return;
        }
        if (rollingBack && claim.markedIn(running)) {
            return;
        }
        // held before the transaction is asked, so that no other answer of the request stores meanwhile
        if (!claim.hold()) {
            return; // ended, or held by an earlier answer of the same request
        }
        boolean reported;
        try {
            reported = transactions.whenTransactionEnds(end -> claim.heldTransactionEnded(end, running, outcome));
        } catch (RuntimeException refused) {
            reported = false; // the manager took no synchronization on an active transaction
        }
        if (!reported) {
            claim.unhold();
            claim.complete(outcome);
            return;
        }
        if (active) {
            claim.storeHeld(outcome);
        }
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
     * @param claim the claim of the method that threw
     * @return {@code false} if the key was taken over while the method ran: its transaction must
     *     not commit (it is marked rollback-only), and the caller should say so
     */
    public boolean releaseAfterFailure(OwnedClaim claim) {
        boolean markable = transactions.active();
        if (!endWithTransaction(claim, null, false)) {
            claim.release();
            return true;
        }
        // rollback-only already (not markable): it ends with the rollback
        return !markable || markExecutedWithCommit(claim);
    }

    /**
     * Marks the work executed as part of the caller's active transaction, for a method whose
     * outcome is not known yet (a failure its transaction may commit despite, a stage still
     * running): at once where the store joins the transaction (the mark rolls back with it), else
     * just before the transaction commits, so that a rollback leaves no mark behind. A mark refused
     * (the key was taken over) or failed makes the transaction roll back.
     *
     * @param claim the claim whose work is not done yet
     * @return {@code false} if the key was found taken over at once: the transaction is marked
     *     rollback-only, and the caller should say so
     */
    public boolean markExecutedWithCommit(OwnedClaim claim) {
        if (!claim.storeJoinsCallerTransaction()) {
            transactions.beforeCommit(() -> markQuietly(claim));
            return true;
        }
        try {
            if (markInThisTransaction(claim)) {
                return true;
            }
            transactions.setRollbackOnly();
            return false;
        } catch (RuntimeException e) {
            // Not fenced: committing the writes could let a retry run them twice.
            LOG.log(Level.SEVERE, Messages.storeFailedOnComplete(claim.policy().endpoint(), claim.keyForLog()), e);
            transactions.setRollbackOnly();
            return true;
        }
    }

    /**
     * @param claim the claim of an HTTP resource method that returned a stage
     * @param stage the stage it returned
     * @return a stage that completes only after a failure released the claim: dependants of the
     *     original stage run in no set order, and a retry must not see the key held
     */
    public static CompletionStage<?> releasedOnFailure(OwnedClaim claim, CompletionStage<?> stage) {
        return StageEnds.after(stage, (value, failure) -> {
            if (failure != null) {
                claim.release();
            }
        });
    }

    /**
     * Marks the work executed, and notes in the claim which transaction the mark was made in (a
     * rollback of another one keeps it).
     *
     * @return whether marked; {@code false} if the key was taken over
     */
    private boolean markInThisTransaction(OwnedClaim claim) {
        boolean marked = claim.markExecuted();
        if (marked) {
            claim.markIn(transactions.transactionKey());
        }
        return marked;
    }

    /** @return whether the work is marked executed; a store failure is logged and counts as not */
    private boolean markQuietly(OwnedClaim claim) {
        try {
            return markInThisTransaction(claim);
        } catch (RuntimeException e) {
            // Not fenced: committing the writes could let a retry run them twice.
            LOG.log(Level.SEVERE, Messages.storeFailedOnComplete(claim.policy().endpoint(), claim.keyForLog()), e);
            return false;
        }
    }
}
