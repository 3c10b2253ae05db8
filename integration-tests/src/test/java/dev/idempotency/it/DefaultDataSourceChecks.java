package dev.idempotency.it;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.Http.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.jboss.arquillian.test.api.ArquillianResource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.it.support.Http;

/**
 * The sample on Payara Micro's default datasource (its embedded H2, {@code jdbc/__default}), as
 * the demo runs it: a failed payment leaves no row, a storm makes one. Rows are counted by the
 * app's {@code GET /api/payments?orderId=}, a query on the {@code payment} table.
 */
abstract class DefaultDataSourceChecks {

    static final String PAYMENTS = "api/payments";

    @ArquillianResource
    URL url;

    Http http;

    @BeforeEach
    void client() {
        http = new Http(url);
    }

    long rows(String orderId) {
        String list = text(http.send(http.request(PAYMENTS + "?orderId=" + orderId).GET().build()));
        return list.split("\"orderId\"", -1).length - 1;
    }

    @Test
    void aPaymentThatFailsAfterItsInsertLeavesNoRowAndItsRetryMakesOne() {
        String orderId = "o-h2-" + UUID.randomUUID();
        String body = "{\"orderId\":\"" + orderId + "\",\"amount\":5,\"currency\":\"EUR\",\"failTimes\":1}";
        String key = newKey();

        assertThat(http.postJson(PAYMENTS, key, body).statusCode()).isEqualTo(502);
        assertThat(rows(orderId)).as("the flushed insert rolled back").isZero();

        HttpResponse<byte[]> retried = http.postJson(PAYMENTS, key, body);
        assertThat(retried.statusCode()).isEqualTo(201);
        assertThat(http.postJson(PAYMENTS, key, body).body()).isEqualTo(retried.body());
        assertThat(rows(orderId)).isEqualTo(1);
    }

    @Test
    void fiftyIdenticalRequestsAtOnceMakeOnePayment() throws Exception {
        String orderId = "o-h2-storm-" + UUID.randomUUID();
        String body = "{\"orderId\":\"" + orderId + "\",\"amount\":500,\"currency\":\"EUR\",\"delayMs\":300}";
        String key = newKey();
        long before = http.count(PAYMENTS + "/executions");
        ExecutorService senders = Executors.newFixedThreadPool(50);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<HttpResponse<byte[]>>> answers = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                answers.add(senders.submit(() -> {
                    start.await();
                    return http.postJson(PAYMENTS, key, body);
                }));
            }
            start.countDown();
            int created = 0;
            int others = 0;
            for (Future<HttpResponse<byte[]>> answer : answers) {
                int status = answer.get(120, TimeUnit.SECONDS).statusCode();
                if (status == 201) {
                    created++;
                } else if (status != 409) {
                    others++;
                }
            }
            assertThat(created).as("the original and replays").isPositive();
            assertThat(others).as("only 201 and 409").isZero();
        } finally {
            senders.shutdownNow();
        }
        assertThat(http.count(PAYMENTS + "/executions") - before).isEqualTo(1);
        assertThat(rows(orderId)).isEqualTo(1);
        assertThat(http.postJson(PAYMENTS, key, body).headers().firstValue("Idempotent-Replayed")).hasValue("true");
    }
}
