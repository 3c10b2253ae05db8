package dev.idempotency.claim;

import java.util.logging.Level;
import java.util.logging.Logger;

import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.internal.Messages;
import dev.idempotency.internal.ThrottledLog;

/**
 * The log of claims the store could not answer, for the HTTP and the non-HTTP path alike. A store
 * that is down or full fails every claim: one record per 10 s for the application, not one per
 * request.
 */
public final class ClaimFailures {

    private static final Logger LOG = Logger.getLogger(ClaimFailures.class.getName());
    private static final ThrottledLog LOGGED = new ThrottledLog(LOG, 10, System::nanoTime);

    private ClaimFailures() {
    }

    /**
     * @param policy the method's policy
     * @param failingOpen whether the method runs anyway (its policy fails open)
     * @param cause the store's failure
     */
    public static void log(IdempotencyPolicy policy, boolean failingOpen, RuntimeException cause) {
        LOGGED.log(Level.SEVERE, Messages.storeFailedOnClaim(policy.endpoint(), failingOpen), cause);
    }
}
