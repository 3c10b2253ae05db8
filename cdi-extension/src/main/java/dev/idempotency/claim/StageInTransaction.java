package dev.idempotency.claim;

import java.util.function.Function;

import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.spi.support.TransactionGuard;

/**
 * The end of a claim whose method returned a stage that was not complete yet: the outcome is
 * stored once the stage completed and the transaction the method ran in (if any) committed; a
 * rollback releases the key once the stage ended too, whatever its value: until then the
 * method's asynchronous work may still run (a call to a payment gateway), and a retry must not
 * start it a second time (a stage that never ends holds the key for its lease); a failed stage,
 * or a transaction whose end cannot be told, ends the claim once both ended (released, unless its
 * work was marked executed, which it was with the commit). A value the stage got inside a
 * transaction of the thread that completed it is stored only if that transaction commits; when
 * that is a transaction other than the method's (an asynchronous bean's own) and it committed,
 * the stage's work happened whatever the method's transaction does: rolled back, the key is kept
 * as executed, without an answer to replay ({@link OwnedClaim#leaveUnsettled}), so that no retry
 * makes the committed charge again. The value is written as the stage ends, before its caller
 * gets it: a caller that changes the object it got changes nothing stored.
 */
public final class StageInTransaction {

    /** What a stage whose value was given inside a transaction that rolled back counts as. */
    private static final Throwable STAGE_ROLLED_BACK = new RuntimeException(
            "the transaction the stage completed in rolled back", null, false, false) {
        private static final long serialVersionUID = 1L;
    };

    private final OwnedClaim claim;
    private final Function<Object, StoredOutcome> outcome;
    private final TransactionGuard transactions;
    /** The key of the transaction the method ran in, or {@code null}. */
    private final Object methodTransaction;
    /** Whether the end of a transaction is awaited; known once {@link #awaitTransaction} was called. */
    private boolean awaiting = true;
    /** {@code null} until the transaction ended. */
    private TransactionGuard.End ended;
    private boolean stageEnded;
    private StoredOutcome value;
    private Throwable failure;
    /** Whether the stage's value was given in a transaction other than the method's, which committed. */
    private boolean committedApart;

    /**
     * @param claim the claim to end
     * @param outcome how a stage's value is stored
     * @param transactions the guard over the transaction of the thread that completes the stage
     *     (made on the method's thread, whose transaction it notes)
     */
    public StageInTransaction(OwnedClaim claim, Function<Object, StoredOutcome> outcome, TransactionGuard transactions) {
        this.claim = claim;
        this.outcome = outcome;
        this.transactions = transactions;
        this.methodTransaction = transactions.transactionKey();
    }

    /**
     * @param awaited whether a transaction's end will be reported (else the stage alone decides)
     */
    public void awaitTransaction(boolean awaited) {
        synchronized (this) {
            this.awaiting = awaited;
        }
        decide();
    }

    /**
     * Called with the end of the method's transaction.
     *
     * @param end how it ended
     */
    public void transactionEnded(TransactionGuard.End end) {
        synchronized (this) {
            this.ended = end;
        }
        decide();
    }

    /**
     * Called when the stage completed.
     *
     * @param value its value
     * @param failure its failure, or {@code null}
     */
    public void stageEnded(Object value, Throwable failure) {
        StoredOutcome written = failure == null && !rolledBack() ? written(value) : null;
        // Completed inside a transaction of the completing thread (an asynchronous bean's own, or the
        // method's, still running): the value stands only if that transaction commits; rolled back,
        // the stage counts as failed (the method's own transaction still decides the rest).
        Object completing = failure == null ? transactions.transactionKey() : null;
        boolean apart = completing != null && !completing.equals(methodTransaction);
        if (failure == null && transactions.whenTransactionEnds(end -> {
            switch (end) {
                case COMMITTED -> {
                    if (apart) {
                        committedApart();
                    }
                    settled(written, null);
                }
                case ROLLED_BACK -> settled(null, STAGE_ROLLED_BACK);
                case UNKNOWN -> claim.leaveUnsettled();
            }
        })) {
            return;
        }
        settled(written, failure);
    }

    /** @return the value as stored, written now, before the stage's caller gets (and may change) it */
    private StoredOutcome written(Object value) {
        try {
            return outcome.apply(value);
        } catch (RuntimeException | Error e) {
            // the function answers a value it cannot write with an answer not stored; what
            // escapes it (an Error) must still end the claim, as a failure does
            settled(null, e);
            throw e;
        }
    }

    /** @return whether the method's transaction rolled back already: nothing of the stage is stored then */
    private synchronized boolean rolledBack() {
        return ended == TransactionGuard.End.ROLLED_BACK;
    }

    private synchronized void committedApart() {
        committedApart = true;
    }

    private void settled(StoredOutcome value, Throwable failure) {
        synchronized (this) {
            this.stageEnded = true;
            this.value = value;
            this.failure = failure;
        }
        decide();
    }

    private void decide() {
        TransactionGuard.End transaction;
        boolean awaited;
        boolean stageDone;
        StoredOutcome result;
        Throwable failed;
        boolean workCommitted;
        synchronized (this) {
            workCommitted = committedApart;
            transaction = ended;
            awaited = awaiting;
            stageDone = stageEnded;
            result = value;
            failed = failure;
        }
        if (transaction == TransactionGuard.End.ROLLED_BACK && stageDone && workCommitted) {
            claim.leaveUnsettled(); // marked executed: the stage's own transaction committed its work
        } else if (transaction == TransactionGuard.End.ROLLED_BACK && stageDone) {
            claim.releaseAfterRollback();
        } else if (!stageDone || (awaited && transaction == null)) {
            return; // the other end is still to come
        } else if (failed != null || transaction == TransactionGuard.End.UNKNOWN) {
            // a commit that cannot be told stores no outcome: the work's mark is kept, as for a failure
            claim.release();
        } else {
            claim.complete(result);
        }
    }
}
