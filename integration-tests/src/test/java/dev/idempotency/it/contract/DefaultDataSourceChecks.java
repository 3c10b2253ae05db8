package dev.idempotency.it.contract;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.Http.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.idempotency.it.support.Http;
import dev.idempotency.it.support.OnSampleApp;

/**
 * The sample on Payara Micro's default datasource (its embedded H2, {@code jdbc/__default}), as
 * the demo runs it: a failed payment leaves no row, a storm makes one, an import is processed once. Rows are counted by the
 * app's {@code GET /api/payments?orderId=}, a query on the {@code payment} table.
 */
abstract class DefaultDataSourceChecks extends OnSampleApp {


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
    void anImportIsAcceptedAndProcessedOnce() throws Exception {
        String orderId = "o-h2-import-" + UUID.randomUUID();
        String key = newKey();
        String body = "{\"orderId\":\"" + orderId + "\",\"amount\":40,\"currency\":\"EUR\"}";

        HttpResponse<byte[]> accepted = http.postJson("api/imports", key, body);
        assertThat(accepted.statusCode()).isEqualTo(202);
        assertThat(http.postJson("api/imports", key, body).body()).isEqualTo(accepted.body());
        http.awaitDone(Http.location(accepted), Duration.ofSeconds(60));
        assertThat(rows(orderId)).isEqualTo(1);
    }

    @Test
    void fiftyIdenticalRequestsAtOnceMakeOnePayment() throws Exception {
        String orderId = "o-h2-storm-" + UUID.randomUUID();
        String body = "{\"orderId\":\"" + orderId + "\",\"amount\":500,\"currency\":\"EUR\",\"delayMs\":300}";
        String key = newKey();
        long before = executions();
        int created = 0;
        int others = 0;
        for (HttpResponse<byte[]> answer : http.postAllAtOnce(PAYMENTS, key, body, 50)) {
            if (answer.statusCode() == 201) {
                created++;
            } else if (answer.statusCode() != 409) {
                others++;
            }
        }
        assertThat(created).as("the original and replays").isPositive();
        assertThat(others).as("only 201 and 409").isZero();
        assertThat(executions() - before).isEqualTo(1);
        assertThat(rows(orderId)).isEqualTo(1);
        assertThat(http.postJson(PAYMENTS, key, body).headers().firstValue("Idempotent-Replayed")).hasValue("true");
    }
}
