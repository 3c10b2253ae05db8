package dev.idempotency.it.contract;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Deployments;
import dev.idempotency.sample.PaymentsPersistence;

/**
 * The JPA store with zero configuration: without the sample's {@code @IdempotencyPersistence}
 * producer it uses its own persistence unit on {@code java:comp/DefaultDataSource}, next to the
 * sample's unit on the same datasource.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ZeroConfigStoreIT extends DefaultDataSourceChecks {

    @Deployment(testable = false)
    static WebArchive deployment() {
        WebArchive archive = Deployments.sampleAppAsBuilt("zero-config");
        archive.deleteClass(PaymentsPersistence.class);
        return archive;
    }
}
