package dev.idempotency.it.storms;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.InfinispanForTests;

/**
 * The storms on the Infinispan store (payments still counted in PostgreSQL), with a Hot Rod
 * client the application produces ({@code @IdempotencyCacheManager}).
 */
@ExtendWith({InfinispanForTests.class, ArquillianExtension.class})
@RunAsClient
class InfinispanStormIT extends StormChecks {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleAppOnInfinispanWithProducedClient("storm-ispn", "", InfinispanForTests.clientProperties());
    }
}
