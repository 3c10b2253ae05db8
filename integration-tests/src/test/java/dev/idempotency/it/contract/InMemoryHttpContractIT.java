package dev.idempotency.it.contract;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Deployments;

/**
 * The HTTP contract on the in-memory store, the library's default (no store module in the WAR;
 * the payments stay in PostgreSQL): the single-node store where every claim's end wakes the
 * duplicates waiting for it on the spot.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class InMemoryHttpContractIT extends HttpContractChecks {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return withContractResources(Deployments.sampleAppOnMemoryStore("contract-memory", CONFIG));
    }
}
