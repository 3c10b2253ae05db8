package dev.idempotency.it.storms;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.InfinispanForTests;

/** The storms on the tiered store: the duplicates are answered by Infinispan, the payment counted in PostgreSQL. */
@ExtendWith({InfinispanForTests.class, ArquillianExtension.class})
@RunAsClient
class TieredStormIT extends StormChecks {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleAppOnTieredStore("storm-tiered", "", InfinispanForTests.clientProperties());
    }
}
