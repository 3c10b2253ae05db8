package dev.idempotency.it.crashes;

import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.InfinispanForTests;

/**
 * A crash mid-request on the Infinispan store (the payments on PostgreSQL). The record lives in
 * another system than the business rows: the executed mark is written just before the commit, so
 * a crash between the two leaves a mark without a payment (retries get {@code 410 response-lost}
 * and the payment is never made: the residual window, see README).
 */
@ExtendWith(InfinispanForTests.class)
class InfinispanCrashMidRequestIT extends CrashMidRequestChecks {

    @Override
    WebArchive app() {
        return withAtomicityResource(Deployments.sampleAppOnInfinispan("crash", CONFIG, InfinispanForTests.clientProperties()));
    }
}
