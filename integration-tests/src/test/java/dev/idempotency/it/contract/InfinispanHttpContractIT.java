package dev.idempotency.it.contract;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.InfinispanForTests;

/** The HTTP contract on the Infinispan store: a real server of its own, authentication on. */
@ExtendWith({InfinispanForTests.class, ArquillianExtension.class})
@RunAsClient
class InfinispanHttpContractIT extends HttpContractChecks {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return withContractResources(Deployments.sampleAppOnInfinispan("contract-ispn", CONFIG,
                InfinispanForTests.clientProperties()));
    }
}
