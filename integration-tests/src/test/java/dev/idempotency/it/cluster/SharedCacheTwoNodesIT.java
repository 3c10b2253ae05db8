package dev.idempotency.it.cluster;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.PaymentsDatabase.paymentRows;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;

import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.Http;
import dev.idempotency.it.support.PayaraMicroProcess;

/**
 * Two Payara Micro nodes on one PostgreSQL, their persistence unit with EclipseLink's shared
 * cache ON for every entity: a node that read a record in progress (and would keep that copy in
 * its shared cache) answers the replay once the other node completed it, never a stale
 * {@code 409}.
 *
 * <p>On PostgreSQL this held before the store bypassed the cache too: a claim there first runs
 * the one-statement native insert, after which EclipseLink reads that transaction's rows from the
 * database. The stale reads themselves (a plain {@code find}, and claims on databases without the
 * one-statement insert) are shown by the store's {@code SharedCacheTest}; this test keeps the
 * deployment honest end to end.
 */
class SharedCacheTwoNodesIT {

    @Test
    void aNodeThatSawTheRecordInProgressReplaysItOnceTheOtherNodeCompletedIt() throws Exception {
        WebArchive app = Deployments.sampleAppWithUnit("cached", "", "postgresql/persistence-shared-cache.xml");
        ExecutorService sender = Executors.newSingleThreadExecutor();
        try (PayaraMicroProcess first = PayaraMicroProcess.start("cache-a", app);
                PayaraMicroProcess second = PayaraMicroProcess.start("cache-b", app)) {
            Http a = new Http(first.url("cached"));
            Http b = new Http(second.url("cached"));
            for (int round = 0; round < 3; round++) {
                String key = newKey();
                String orderId = "o-cache-" + UUID.randomUUID();
                String body = "{\"orderId\":\"" + orderId + "\",\"amount\":90,\"currency\":\"EUR\",\"delayMs\":1500}";
                long before = a.count("api/payments/executions");

                Future<HttpResponse<byte[]>> slow = sender.submit(() -> a.postJson("api/payments", key, body));
                a.awaitCount("api/payments/executions", before + 1);
                HttpResponse<byte[]> duplicate = b.postJson("api/payments", key, body);
                HttpResponse<byte[]> created = slow.get(60, TimeUnit.SECONDS);
                HttpResponse<byte[]> retry = b.postJson("api/payments", key, body);

                assertThat(duplicate.statusCode()).as("the other node, while the first runs").isEqualTo(409);
                assertThat(created.statusCode()).isEqualTo(201);
                assertThat(retry.statusCode()).as("round " + round + ": not a stale copy of the record in progress: "
                        + new String(retry.body())).isEqualTo(201);
                assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
                assertThat(retry.body()).isEqualTo(created.body());
                assertThat(paymentRows(orderId)).isEqualTo(1);
            }
        } finally {
            sender.shutdownNow();
        }
    }
}
