package dev.idempotency.it.crashes;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.PaymentsDatabase.paymentRows;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;

import dev.idempotency.it.resources.AtomicityResource;
import dev.idempotency.it.support.Http;
import dev.idempotency.it.support.PayaraMicroProcess;

/**
 * A server killed ({@code kill -9}) while a slow request holds its claim: after a restart the
 * client retries until it succeeds. Exactly one payment row exists (PostgreSQL), and no retry got
 * a 5xx. Run once per store.
 */
abstract class CrashMidRequestChecks {

    static final String PATH = "api/atomicity/slow-first";
    static final String CONFIG = AtomicityResource.class.getName() + "/Idempotent/lease=PT8S\n";

    /** @return the sample on the store under test, named "crash", with the atomicity resource */
    abstract WebArchive app();

    static WebArchive withAtomicityResource(WebArchive archive) {
        return archive.addClasses(AtomicityResource.class, AtomicityResource.Receipt.class, AtomicityResource.BrokenWriter.class);
    }

    @Test
    void aRequestWhoseServerWasKilledMidwayRunsOnceWhenRetriedAfterARestart() throws Exception {
        String key = newKey();
        String orderId = "o-crash-http-" + UUID.randomUUID();
        // its first attempt in each JVM inserts the row, then takes 6 s (the lease is 8 s)
        String body = "{\"orderId\":\"" + orderId + "\",\"amount\":77,\"currency\":\"EUR\",\"delayMs\":6000}";
        try (PayaraMicroProcess doomed = PayaraMicroProcess.start("crash-doomed", app())) {
            Http http = new Http(doomed.url("crash"));
            CompletableFuture<Void> lost = CompletableFuture.runAsync(() -> {
                try {
                    http.postJson(PATH, key, body);
                } catch (IllegalStateException connectionReset) {
                    // the server dies under it
                }
            });
            http.awaitCount("api/payments/executions", 1);
            doomed.kill();
            lost.get(30, TimeUnit.SECONDS);
        }
        assertThat(paymentRows(orderId)).as("the killed request's transaction never committed").isZero();

        List<Integer> retries = new ArrayList<>();
        try (PayaraMicroProcess restarted = PayaraMicroProcess.start("crash-restarted", app())) {
            Http http = new Http(restarted.url("crash"));
            HttpResponse<byte[]> answer = http.postJson(PATH, key, body);
            retries.add(answer.statusCode());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (answer.statusCode() != 200 && System.nanoTime() < deadline) {
                Thread.sleep(500);
                answer = http.postJson(PATH, key, body);
                retries.add(answer.statusCode());
            }
            System.out.println("crash mid-request: killed while holding the claim; retries after the restart answered "
                    + retries + "; payment rows " + paymentRows(orderId));
            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(retries).as("no retry got a 5xx").allMatch(status -> status < 500);
            assertThat(paymentRows(orderId)).as("exactly one payment").isEqualTo(1);
            assertThat(http.postJson(PATH, key, body).body()).as("later retries replay it").isEqualTo(answer.body());
        }
    }
}
