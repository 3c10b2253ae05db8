package dev.idempotency.it.cluster;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.PaymentsDatabase.paymentRows;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.UUID;

import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.Http;
import dev.idempotency.it.support.InfinispanForTests;
import dev.idempotency.it.support.PayaraMicroProcess;

/**
 * Two application instances (two Payara Micro processes) sharing one Infinispan server: 40
 * identical concurrent requests, 20 to each instance, run the payment exactly once.
 */
@ExtendWith(InfinispanForTests.class)
class TwoInstancesOnInfinispanIT {

    @Test
    void fortyIdenticalRequestsSplitAcrossTwoInstancesRunOnce() throws Exception {
        WebArchive app = Deployments.sampleAppOnInfinispan("shared", "", InfinispanForTests.clientProperties());
        try (PayaraMicroProcess first = PayaraMicroProcess.start("ispn-a", app);
                PayaraMicroProcess second = PayaraMicroProcess.start("ispn-b", app)) {
            List<Http> instances = List.of(new Http(first.url("shared")), new Http(second.url("shared")));
            // One payment through each instance first: the first creates the cache. Two nodes that
            // create it at the same instant can stall the server for a minute (seen once here; see
            // docs/stores/infinispan.md); the storm below is about the claims, not that.
            for (Http instance : instances) {
                String warmUp = "o-two-warm-" + UUID.randomUUID();
                assertThat(instance.postJson("api/payments", newKey(), "{\"orderId\":\"" + warmUp
                        + "\",\"amount\":1,\"currency\":\"EUR\"}").statusCode()).isEqualTo(201);
            }
            long before = instances.get(0).count("api/payments/executions") + instances.get(1).count("api/payments/executions");
            String key = newKey();
            String orderId = "o-two-" + UUID.randomUUID();
            String body = "{\"orderId\":\"" + orderId + "\",\"amount\":40,\"currency\":\"EUR\",\"delayMs\":300}";
            List<HttpResponse<byte[]>> answers = Http.postAllAtOnce(instances, "api/payments", key, body, 40);
            long executions = instances.get(0).count("api/payments/executions") + instances.get(1).count("api/payments/executions")
                    - before;
            long created = answers.stream().filter(a -> a.statusCode() == 201).count();
            long conflicts = answers.stream().filter(a -> a.statusCode() == 409).count();
            System.out.println("two instances on one Infinispan: 40 requests -> " + executions + " execution, "
                    + created + " x 201, " + conflicts + " x 409, " + paymentRows(orderId) + " payment row");
            assertThat(executions).isEqualTo(1);
            assertThat(paymentRows(orderId)).isEqualTo(1);
            assertThat(created + conflicts).as("only 201 and 409").isEqualTo(40);
        }
    }
}
