package dev.idempotency.jpa;

import dev.idempotency.spi.IdempotencyStoreException;

/**
 * The store's own transactions (those begun while the caller's transaction is open, each on a
 * thread of the store's own and with a second connection) are all running: the work was refused
 * at once rather than queued behind them ({@code IDEMP0511}). Thrown as it is by every operation.
 */
final class OwnTransactionsExhausted extends IdempotencyStoreException {

    private static final long serialVersionUID = 1L;

    OwnTransactionsExhausted(int max) {
        super(JpaMessages.ownTransactionsExhausted(max, SeparateRecordTransactions.MAX_OWN_TRANSACTIONS));
    }
}
