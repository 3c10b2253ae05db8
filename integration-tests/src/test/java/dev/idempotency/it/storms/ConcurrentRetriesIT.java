package dev.idempotency.it.storms;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Deployments;

/** The storms on the JPA store, PostgreSQL. */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ConcurrentRetriesIT extends StormChecks {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleApp("storm", "");
    }
}
