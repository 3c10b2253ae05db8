package dev.idempotency.it.outages;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.PaymentsDatabase.paymentRows;
import static dev.idempotency.it.support.Problems.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.net.http.HttpResponse;
import java.util.UUID;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.Http;
import dev.idempotency.it.support.InfinispanForTests;

/**
 * The Infinispan server stopped while the application runs: requests answer 503 with
 * {@code Retry-After} and nothing executes, but a key this node has replayed before is still
 * replayed, byte for byte, from its replay cache; the server restarted (empty): requests succeed
 * again, without restarting the application.
 */
@ExtendWith({InfinispanForTests.class, ArquillianExtension.class})
@RunAsClient
class InfinispanOutageIT {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleAppOnInfinispan("outage-ispn", "", InfinispanForTests.clientProperties());
    }

    @ArquillianResource
    URL url;

    static String order(String orderId) {
        return "{\"orderId\":\"" + orderId + "\",\"amount\":10,\"currency\":\"EUR\"}";
    }

    @Test
    void anOutageIsFailClosedAndTheApplicationRecoversWhenTheServerIsBack() throws Exception {
        Http http = new Http(url);
        String replayedKey = newKey();
        String replayedOrder = order("o-before-" + UUID.randomUUID());
        HttpResponse<byte[]> first = http.postJson("api/payments", replayedKey, replayedOrder);
        assertThat(first.statusCode()).isEqualTo(201);
        // read back from the store once: from now on this node answers its retries itself
        assertThat(http.postJson("api/payments", replayedKey, replayedOrder).headers().firstValue("Idempotent-Replayed"))
                .hasValue("true");
        long before = http.count("api/payments/executions");

        InfinispanForTests.stop();
        HttpResponse<byte[]> replayedDuringOutage = http.postJson("api/payments", replayedKey, replayedOrder);
        assertThat(replayedDuringOutage.statusCode()).isEqualTo(201);
        assertThat(replayedDuringOutage.body()).isEqualTo(first.body());
        assertThat(replayedDuringOutage.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        HttpResponse<byte[]> reusedDuringOutage = http.postJson("api/payments", replayedKey, order("o-other"));
        assertProblem(reusedDuringOutage, 422, "key-reused");
        String during = "o-during-" + UUID.randomUUID();
        for (int i = 0; i < 5; i++) {
            HttpResponse<byte[]> refused = http.postJson("api/payments", newKey(), order(during));
            assertProblem(refused, 503, "store-unavailable");
            assertThat(refused.headers().firstValue("Retry-After")).isPresent();
        }
        assertThat(http.count("api/payments/executions")).as("nothing ran without a claim").isEqualTo(before);
        assertThat(paymentRows(during)).isZero();

        InfinispanForTests.restart();
        String key = newKey();
        String after = "o-after-" + UUID.randomUUID();
        HttpResponse<byte[]> answer = http.postJson("api/payments", key, order(after));
        int refusedAfterRestart = 0;
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (answer.statusCode() == 503 && System.nanoTime() < deadline) {
            refusedAfterRestart++;
            Thread.sleep(500);
            answer = http.postJson("api/payments", key, order(after));
        }
        System.out.println("infinispan outage: 5 requests during the outage -> 503, 0 executions; after the restart "
                + refusedAfterRestart + " more 503 before the first 201");
        assertThat(answer.statusCode()).isEqualTo(201);
        assertThat(http.postJson("api/payments", key, order(after)).headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(paymentRows(after)).isEqualTo(1);
    }
}
