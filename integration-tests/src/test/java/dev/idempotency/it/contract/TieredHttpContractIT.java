package dev.idempotency.it.contract;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.InfinispanForTests;

/** The HTTP contract on the tiered store: Infinispan (a real server of its own) in front of JPA on PostgreSQL. */
@ExtendWith({InfinispanForTests.class, ArquillianExtension.class})
@RunAsClient
class TieredHttpContractIT extends HttpContractChecks {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return withContractResources(Deployments.sampleAppOnTieredStore("contract-tiered", CONFIG,
                InfinispanForTests.clientProperties()));
    }
}
