package dev.idempotency.it.cluster;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.PaymentsDatabase.paymentRows;
import static dev.idempotency.it.support.Problems.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;

import dev.idempotency.it.resources.AtomicityResource;
import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.Http;
import dev.idempotency.it.support.PayaraMicroProcess;

/**
 * Two nodes whose clocks disagree by 26 hours (JVM time zones UTC+14 and UTC-12, the skew a
 * misconfigured node really shows to its JDBC sessions) share the JPA store on PostgreSQL: a claim
 * made on one is live on the other, the lease ends when the database says so, and a completed
 * payment is replayed by both. The library reads no node clock at all: leases and expiry are the
 * store's.
 */
class SkewedNodesIT {

    static final String PATH = "api/atomicity/slow-first";

    static WebArchive app() {
        return Deployments.sampleApp("skew", AtomicityResource.class.getName() + "/Idempotent/lease=PT8S\n")
                .addClasses(AtomicityResource.class, AtomicityResource.Receipt.class, AtomicityResource.BrokenWriter.class);
    }

    @Test
    void nodesWithClocks26HoursApartAgreeOnEveryOutcome() throws Exception {
        WebArchive app = app();
        try (PayaraMicroProcess west = PayaraMicroProcess.start("skew-west", List.of("-Duser.timezone=Etc/GMT+12"), app);
                PayaraMicroProcess east = PayaraMicroProcess.start("skew-east", List.of("-Duser.timezone=Pacific/Kiritimati"), app)) {
            Http westHttp = new Http(west.url("skew"));
            Http eastHttp = new Http(east.url("skew"));
            // warm both nodes up (first requests, the store's first use), so that the east node answers in time
            for (Http node : List.of(westHttp, eastHttp)) {
                assertThat(node.postJson("api/payments", newKey(),
                        "{\"orderId\":\"o-skew-warm-" + UUID.randomUUID() + "\",\"amount\":1,\"currency\":\"EUR\"}")
                        .statusCode()).isEqualTo(201);
            }
            long westBefore = westHttp.count("api/payments/executions");
            long eastBefore = eastHttp.count("api/payments/executions");
            String key = newKey();
            String orderId = "o-skew-" + UUID.randomUUID();
            // the first attempt on a node takes 5 s, well within its 8 s lease
            String body = "{\"orderId\":\"" + orderId + "\",\"amount\":26,\"currency\":\"EUR\",\"delayMs\":5000}";

            CompletableFuture<HttpResponse<byte[]>> first = CompletableFuture.supplyAsync(() -> westHttp.postJson(PATH, key, body));
            westHttp.awaitCount("api/payments/executions", westBefore + 1);
            HttpResponse<byte[]> duplicate = eastHttp.postJson(PATH, key, body);
            HttpResponse<byte[]> original = first.get(30, TimeUnit.SECONDS);
            HttpResponse<byte[]> replayEast = eastHttp.postJson(PATH, key, body);
            HttpResponse<byte[]> replayWest = westHttp.postJson(PATH, key, body);

            System.out.println("skewed nodes (UTC-12 and UTC+14): while the west node ran, the east node answered "
                    + duplicate.statusCode() + "; then " + replayEast.statusCode() + " and " + replayWest.statusCode()
                    + " replays; executions " + (westHttp.count("api/payments/executions") - westBefore
                            + eastHttp.count("api/payments/executions") - eastBefore)
                    + ", payment rows " + paymentRows(orderId));
            assertProblem(duplicate, 409, "request-in-progress");
            assertThat(original.statusCode()).isEqualTo(200);
            assertThat(replayEast.body()).isEqualTo(original.body());
            assertThat(replayEast.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(replayWest.body()).isEqualTo(original.body());
            assertThat(eastHttp.count("api/payments/executions") - eastBefore).as("the east node never ran it").isZero();
            assertThat(paymentRows(orderId)).isEqualTo(1);
        }
    }
}
