package dev.idempotency.cdi;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.logging.Logger;

import jakarta.enterprise.inject.Vetoed;

import dev.idempotency.claim.HttpClaim;
import dev.idempotency.internal.Messages;
import dev.idempotency.spi.StoredOutcome;

/**
 * The claim the JAX-RS filter acquired for the current request, handed to the interceptor on the
 * resource method (one claim per request) and released at the end of a synchronous request that
 * produced no recordable response, e.g. after an exception no mapper handled.
 *
 * <p>Request-scoped, made and disposed of by {@link CurrentHttpClaimScope}'s producer, not a managed
 * bean of its own ({@link Vetoed}): the server injects into every managed bean instance it makes
 * (Payara runs its resource injection and instance listeners on each), which cost about 8 % of an
 * in-memory first execution; a produced instance is a plain {@code new}. A request that ends after
 * its method answered but before that answer's body was written leaves the answer stored without
 * its body (retries are told it was not stored), never the key released.
 */
@Vetoed
public class CurrentHttpClaim {

    private static final Logger LOG = Logger.getLogger(CurrentHttpClaim.class.getName());

    private HttpClaim claim;
    private boolean taken;

    /** @param claim the claim acquired for this request */
    public void set(HttpClaim claim) {
        this.claim = claim;
        this.taken = false;
    }

    /**
     * @param method the intercepted method
     * @param target the instance it is called on
     * @return the request's claim if it was acquired for this method of this resource and not
     *     handed out before: a bean of another class the resource calls, with a method of the same
     *     name and parameters (even of an interface both implement), is not it (its call claims its
     *     own key)
     */
    public HttpClaim take(Method method, Object target) {
        if (claim == null || taken || !sameSignature(claim.resourceMethod(), method)
                || !claim.resourceClass().isInstance(target)) {
            return null;
        }
        taken = true;
        claim.markEntered();
        return claim;
    }

    /** Called when the request's context ends ({@link CurrentHttpClaimScope#end}). */
    void releaseUnfinished() {
        // An async endpoint's request outlives this context's first end once its method ran (or may
        // have: no interceptor sees it); its filters end the claim. One that never ran (a later
        // filter threw, the resource could not be made) is released as any other.
        if (claim == null || (claim.asyncEndpoint() && (claim.entered() || (claim.passedFilters() && claim.runsUnseen())))) {
            return;
        }
        StoredOutcome unwritten = claim.isOpen() ? claim.unwrittenAnswer("the request ended before the body was written")
                : null;
        if (unwritten == null && claim.isOpen()) {
            unwritten = claim.returnedUnanswered("the request ended before the answer reached the response filter");
        }
        if (unwritten != null) {
            claim.complete(unwritten);
            return;
        }
        if (claim.release()) {
            LOG.warning(Messages.claimReleasedAtRequestEnd(claim.policy().endpoint(), claim.keyForLog()));
        }
    }

    private static boolean sameSignature(Method a, Method b) {
        return a.getName().equals(b.getName()) && Arrays.equals(a.getParameterTypes(), b.getParameterTypes());
    }
}
