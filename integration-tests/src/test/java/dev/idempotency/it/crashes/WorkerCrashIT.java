package dev.idempotency.it.crashes;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.Http.number;
import static dev.idempotency.it.support.Http.text;
import static dev.idempotency.it.support.PaymentsDatabase.paymentRows;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;

import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.Http;
import dev.idempotency.it.support.PayaraMicroProcess;

/**
 * A worker of the local message table killed mid-message ({@code kill -9} of its Payara Micro,
 * PostgreSQL keeps the claim): after a restart, the claim's lease runs out, another worker takes
 * the message over and processes it exactly once.
 */
class WorkerCrashIT {

    static final String CONFIG = String.join("\n",
            "sample.imports.workers=1",
            "sample.imports.poll-interval=PT0.2S",
            "dev.idempotency.sample.imports.ImportProcessor/process/Idempotent/lease=PT8S");

    static WebArchive app() {
        return Deployments.sampleApp("imports", CONFIG);
    }

    @Test
    void aMessageWhoseWorkerWasKilledIsFinishedOnceAfterItsLease() throws Exception {
        String orderId = "o-crash-" + UUID.randomUUID();
        String location;
        try (PayaraMicroProcess doomed = PayaraMicroProcess.start("imports-doomed", app())) {
            Http http = new Http(doomed.url("imports"));
            HttpResponse<byte[]> accepted = http.postJson("api/imports", newKey(),
                    "{\"orderId\":\"" + orderId + "\",\"amount\":900,\"currency\":\"EUR\",\"delayMs\":6000}");
            assertThat(accepted.statusCode()).isEqualTo(202);
            location = Http.location(accepted);
            awaitStarted(http);

            doomed.kill(); // mid-message: claimed, payment row not committed
        }
        assertThat(paymentRows(orderId)).as("nothing committed by the killed worker").isZero();

        try (PayaraMicroProcess restarted = PayaraMicroProcess.start("imports-restarted", app())) {
            Http http = new Http(restarted.url("imports"));
            http.awaitDone(location, Duration.ofSeconds(90));
            assertThat(paymentRows(orderId)).as("processed exactly once").isEqualTo(1);
            System.out.println("worker crash: killed mid-message, restarted, taken over after the lease: "
                    + paymentRows(orderId) + " payment row; restarted node's workers: "
                    + text(http.send(http.request("api/imports/activity").GET().build())));
        }
    }

    static void awaitStarted(Http http) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (number(text(http.send(http.request("api/imports/activity").GET().build())), "started") > 0) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the worker never started the message");
    }
}
