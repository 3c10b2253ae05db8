package dev.idempotency.cdi;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.RequestScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;

/**
 * Makes the request-scoped {@link CurrentHttpClaim}: one per request, created at the first call on
 * its client proxy (the filter's), and given to {@link #end} when the request's context ends, which
 * releases a claim the request left unfinished. Static, so no instance of this bean is made per
 * request either.
 */
@ApplicationScoped
public class CurrentHttpClaimScope {

    /** @return the current request's empty holder */
    @Produces
    @RequestScoped
    static CurrentHttpClaim begin() {
        return new CurrentHttpClaim();
    }

    /** @param ended the holder of a request whose context ended */
    static void end(@Disposes CurrentHttpClaim ended) {
        ended.releaseUnfinished();
    }
}
