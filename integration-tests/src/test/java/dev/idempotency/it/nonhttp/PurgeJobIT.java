package dev.idempotency.it.nonhttp;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.PaymentsDatabase.recordState;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.Http;

/**
 * The JPA store's purge job in the container (Payara Micro's default managed scheduled
 * executor, every second here): a completed record past its ttl disappears from PostgreSQL's
 * table. Which records it spares is tested against PostgreSQL directly (jpa-store's PurgeTest).
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class PurgeJobIT {

    static final String ENDPOINT = "dev.idempotency.sample.PaymentResource#create(dev.idempotency.sample.PaymentRequest)";

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleApp("purge", String.join("\n",
                "idempotency.jpa.purge.interval=PT1S",
                "dev.idempotency.sample.PaymentResource/create/Idempotent/lease=PT1S",
                "dev.idempotency.sample.PaymentResource/create/Idempotent/ttl=PT2S"));
    }

    @ArquillianResource
    URL url;

    @Test
    void anExpiredCompletedRecordIsPurgedByTheScheduledJob() throws Exception {
        Http http = new Http(url);
        String key = newKey();
        assertThat(http.postJson("api/payments", key, "{\"orderId\":\"o-purge\",\"amount\":1,\"currency\":\"EUR\"}")
                .statusCode()).isEqualTo(201);
        assertThat(recordState(ENDPOINT, null, key)).contains("COMPLETED");

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Optional<String> state = recordState(ENDPOINT, null, key);
        while (state.isPresent() && System.nanoTime() < deadline) {
            Thread.sleep(250);
            state = recordState(ENDPOINT, null, key);
        }
        assertThat(state).as("purged once its 2 s ttl passed").isEmpty();
    }
}
