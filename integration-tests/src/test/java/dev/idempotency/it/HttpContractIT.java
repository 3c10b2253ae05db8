package dev.idempotency.it;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Deployments;

/** The HTTP contract on the JPA store, PostgreSQL. */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class HttpContractIT extends HttpContractChecks {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return withContractResources(Deployments.sampleApp("contract", CONFIG));
    }
}
