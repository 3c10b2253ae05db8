package dev.idempotency.claim;

import java.util.function.Function;

import dev.idempotency.spi.StoredOutcome;

/**
 * The end of a claim whose method returned a stage that was not complete yet: the outcome is
 * stored once the stage completed and the transaction the method ran in (if any) committed; a
 * rollback releases the key at once, whatever the stage does; a failed stage ends the claim once
 * the transaction ended (released, unless its committed work was marked executed).
 */
public final class StageInTransaction {

    private final OwnedClaim claim;
    private final Function<Object, StoredOutcome> outcome;
    /** Whether the end of a transaction is awaited; known once {@link #awaitTransaction} was called. */
    private boolean awaiting = true;
    /** {@code null} until the transaction ended. */
    private Boolean committed;
    private boolean stageEnded;
    private Object value;
    private Throwable failure;

    /**
     * @param claim the claim to end
     * @param outcome how a stage's value is stored
     */
    public StageInTransaction(OwnedClaim claim, Function<Object, StoredOutcome> outcome) {
        this.claim = claim;
        this.outcome = outcome;
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
     * @param committed whether it committed
     */
    public void transactionEnded(boolean committed) {
        synchronized (this) {
            this.committed = committed;
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
        synchronized (this) {
            this.stageEnded = true;
            this.value = value;
            this.failure = failure;
        }
        decide();
    }

    private void decide() {
        Boolean transaction;
        boolean awaited;
        boolean ended;
        Object result;
        Throwable failed;
        synchronized (this) {
            transaction = committed;
            awaited = awaiting;
            ended = stageEnded;
            result = value;
            failed = failure;
        }
        if (Boolean.FALSE.equals(transaction)) {
            claim.releaseAfterRollback();
        } else if (!ended || (awaited && transaction == null)) {
            return; // the other end is still to come
        } else if (failed != null) {
            claim.release();
        } else {
            claim.complete(outcome.apply(result));
        }
    }
}
