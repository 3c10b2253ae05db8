package dev.idempotency.claim;

import java.util.HashMap;
import java.util.Map;

import dev.idempotency.spi.support.TransactionGuard;

/**
 * The keys that non-HTTP calls claimed inside the caller's JTA transaction, kept with it until it
 * ends, so that a second call with one of them in the same transaction (a batch with a duplicate
 * row) is answered as the duplicate it is without asking the store: its first call's outcome is
 * not committed yet. A store that joins the transaction (JPA) would otherwise make the second claim
 * wait for the row that the first call's transaction, the caller's own, holds until it ends: a
 * wait that only the database's lock timeout ends, as a store failure. Only the same transaction:
 * a {@code REQUIRES_NEW} call inside it is another one, and its claim of a key the outer one
 * holds waits as before.
 *
 * <p>A transaction is one thread's at a time: its map needs no locking.
 */
public final class TransactionClaims {

    /** The transaction resource's key; one per library copy, so two applications' never meet. */
    private static final Object CLAIMED_KEYS = new Object();

    private TransactionClaims() {
    }

    /**
     * @param transactions the guard over the caller's transaction
     * @param key the scoped key
     * @return the fingerprint of the call that claimed the key in the thread's running transaction
     *     (active or marked rollback-only), or {@code null} (none did, or none is running)
     */
    public static String fingerprintOf(TransactionGuard transactions, String key) {
        Map<?, ?> claimed = (Map<?, ?>) transactions.resource(CLAIMED_KEYS);
        return claimed == null ? null : (String) claimed.get(key);
    }

    /**
     * Remembers a key claimed in the thread's running transaction; nothing without one (or in one
     * that ended: its claims end at once, not with it).
     *
     * @param transactions the guard over the caller's transaction
     * @param key the scoped key
     * @param fingerprint the call's fingerprint
     */
    @SuppressWarnings("unchecked")
    public static void claimed(TransactionGuard transactions, String key, String fingerprint) {
        Map<String, String> claimed = (Map<String, String>) transactions.resource(CLAIMED_KEYS);
        if (claimed == null) {
            claimed = new HashMap<>();
            if (!transactions.putResource(CLAIMED_KEYS, claimed)) {
                return;
            }
        }
        claimed.put(key, fingerprint);
    }
}
