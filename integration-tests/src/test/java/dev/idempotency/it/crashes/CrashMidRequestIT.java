package dev.idempotency.it.crashes;

import org.jboss.shrinkwrap.api.spec.WebArchive;

import dev.idempotency.it.support.Deployments;

/**
 * A crash mid-request on the JPA store (PostgreSQL). The claim, the payment row and the
 * executed mark commit together, so there is no window in which the business work committed and
 * the record does not say so.
 */
class CrashMidRequestIT extends CrashMidRequestChecks {

    @Override
    WebArchive app() {
        return withAtomicityResource(Deployments.sampleApp("crash", CONFIG));
    }
}
