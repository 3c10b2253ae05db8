package dev.idempotency.it.storms;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.PaymentsDatabase.paymentRows;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.UUID;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.outages.OutageUnderLoadChecks;
import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.Http;
import dev.idempotency.it.support.PayaraMicroProcess;
import dev.idempotency.it.support.PostgreSqlDataSource;
import dev.idempotency.it.support.RedisForTests;

/**
 * The Redis store under load, on one deployment and one redis-server (payments counted in
 * PostgreSQL): the storms (one key x 50 at once; 10 keys x 50), the outage under load (the
 * server stopped with SIGTERM for 15 s of a 60 s load, then started again on the same port and
 * folder), and two application instances on that one server (a second Payara Micro with the same
 * WAR: 40 identical requests split over both run once). The server keeps an append-only file, so
 * that the restart finds the records of the payments made before it: a Redis without persistence
 * forgets every record when it stops, and a retry then pays again (docs/stores/redis.md).
 */
@RedisForTests.AppendOnly
@ExtendWith({RedisForTests.class, ArquillianExtension.class})
@RunAsClient
class RedisUnderLoadIT extends StormChecks implements OutageUnderLoadChecks {

    static final String NAME = "load-redis";

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleAppOnRedis(NAME, "Idempotent/lease=PT5S", RedisForTests.settings());
    }

    @Test
    void fortyIdenticalRequestsSplitAcrossTwoInstancesRunOnce() throws Exception {
        try (PayaraMicroProcess second = PayaraMicroProcess.start("redis-second", deployment())) {
            List<Http> instances = List.of(http, new Http(second.url(NAME)));
            long before = instances.get(0).count("api/payments/executions");
            String key = newKey();
            String orderId = "o-two-redis-" + UUID.randomUUID();
            String body = "{\"orderId\":\"" + orderId + "\",\"amount\":40,\"currency\":\"EUR\",\"delayMs\":300}";
            List<HttpResponse<byte[]>> answers = Http.postAllAtOnce(instances, PAYMENTS, key, body, 40);
            long executions = instances.get(0).count("api/payments/executions") - before
                    + instances.get(1).count("api/payments/executions");
            long created = answers.stream().filter(a -> a.statusCode() == 201).count();
            long conflicts = answers.stream().filter(a -> a.statusCode() == 409).count();
            System.out.println("two instances on one Redis: 40 requests -> " + executions + " execution, "
                    + created + " x 201, " + conflicts + " x 409, " + paymentRows(orderId) + " payment row");
            assertThat(executions).isEqualTo(1);
            assertThat(paymentRows(orderId)).isEqualTo(1);
            assertThat(created + conflicts).as("only 201 and 409").isEqualTo(40);

            byte[] original = answers.stream().filter(a -> a.statusCode() == 201
                    && a.headers().firstValue("Idempotent-Replayed").isEmpty()).findFirst().orElseThrow().body();
            for (Http instance : instances) {
                HttpResponse<byte[]> retry = instance.postJson(PAYMENTS, key, body);
                assertThat(retry.statusCode()).isEqualTo(201);
                assertThat(retry.body()).as("a retry on " + instance.base()).isEqualTo(original);
            }
        }
    }

    @Override
    public URL url() {
        return url;
    }

    @Override
    public String store() {
        return "Redis";
    }

    @Override
    public void stopStore() throws Exception {
        RedisForTests.server().stop();
    }

    @Override
    public void startStore() throws Exception {
        RedisForTests.server().start();
    }

    @Override
    public String paymentsDatabase() {
        return PostgreSqlDataSource.URL;
    }
}
