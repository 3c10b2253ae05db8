package dev.idempotency.it.contract;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Deployments;

/** The demo exactly as built: payments and records in one unit on the default datasource. */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class DemoOnDefaultDataSourceIT extends DefaultDataSourceChecks {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleAppAsBuilt("demo");
    }
}
