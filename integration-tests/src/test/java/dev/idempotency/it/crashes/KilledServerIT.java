package dev.idempotency.it.crashes;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.Http.number;
import static dev.idempotency.it.support.Http.text;
import static dev.idempotency.it.support.PaymentsDatabase.paymentRows;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.assertj.core.api.SoftAssertions;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.resources.AtomicityResource;
import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.Http;
import dev.idempotency.it.support.InfinispanForTests;
import dev.idempotency.it.support.PayaraMicroProcess;

/**
 * A Payara Micro killed ({@code kill -9}) mid-work, then started again, with three applications
 * on it, each caught with work in flight by the one kill (one doomed process and one restart for
 * the three, instead of one each):
 * <ul>
 * <li>a slow request holding its claim on the JPA store (PostgreSQL): the claim, the payment row
 * and the executed mark commit together, so no window leaves committed work that its record does
 * not show;</li>
 * <li>the same on the Infinispan store (the payments on PostgreSQL): the record lives in another
 * system than the business rows, the executed mark written just before the commit, so a crash
 * between the two would leave a mark without a payment (retries get {@code 410 response-lost}:
 * the residual window, see the README); the kill here comes before the mark;</li>
 * <li>a worker of the local message table killed mid-message (PostgreSQL keeps its claim): after
 * the restart, the claim's lease runs out, and a worker of the restarted node takes the message over.</li>
 * </ul>
 * After the restart each HTTP client retries until it succeeds: exactly one payment row per
 * order, no retry answered {@code 5xx}, later retries replay the answer; the message is processed
 * exactly once. The work takes {@value #DELAY_MS} ms after its row is inserted (not committed),
 * so that all three are caught in flight (the test fails, saying so, when the machine was too slow
 * to have them all running within that time); the leases ({@code PT20S}) are longer, so that
 * nobody takes a claim over before the kill.
 */
@ExtendWith(InfinispanForTests.class)
class KilledServerIT {

    static final String PATH = "api/atomicity/slow-first";
    static final int DELAY_MS = 15_000;
    /** The HTTP applications: their workers off, so that only the imports application takes messages. */
    static final String HTTP_CONFIG = String.join("\n",
            AtomicityResource.class.getName() + "/Idempotent/lease=PT20S",
            "sample.imports.workers=0",
            "");
    static final String WORKER_CONFIG = String.join("\n",
            "sample.imports.workers=1",
            "sample.imports.poll-interval=PT0.2S",
            "dev.idempotency.sample.imports.ImportProcessor/process/Idempotent/lease=PT20S",
            "");

    /** @return the JPA store's HTTP app, the Infinispan store's, and the local message table's */
    static WebArchive[] apps() {
        return new WebArchive[] {
            withAtomicityResource(Deployments.sampleApp("crash-jpa", HTTP_CONFIG)),
            withAtomicityResource(Deployments.sampleAppOnInfinispan("crash-ispn", HTTP_CONFIG,
                    InfinispanForTests.clientProperties())),
            Deployments.sampleApp("imports", WORKER_CONFIG)};
    }

    static WebArchive withAtomicityResource(WebArchive archive) {
        return archive.addClasses(AtomicityResource.class, AtomicityResource.Receipt.class, AtomicityResource.BrokenWriter.class);
    }

    @Test
    void workInFlightWhenItsServerWasKilledRunsOnceAfterARestart() throws Exception {
        List<SlowRequest> requests = List.of(new SlowRequest("crash-jpa"), new SlowRequest("crash-ispn"));
        String importedOrder = "o-crash-import-" + UUID.randomUUID();
        String location;
        try (PayaraMicroProcess doomed = PayaraMicroProcess.start("crash-doomed", apps())) {
            List<CompletableFuture<Void>> lost = new ArrayList<>();
            for (SlowRequest request : requests) {
                lost.add(request.sendTo(doomed));
            }
            long firstRunning = 0;
            for (SlowRequest request : requests) {
                request.awaitRunning(doomed);
                firstRunning = firstRunning == 0 ? System.nanoTime() : firstRunning;
            }
            // the message last: its worker takes it within a poll, while the slow requests run
            Http imports = new Http(doomed.url("imports"));
            HttpResponse<byte[]> accepted = imports.postJson("api/imports", newKey(),
                    "{\"orderId\":\"" + importedOrder + "\",\"amount\":900,\"currency\":\"EUR\",\"delayMs\":" + DELAY_MS + "}");
            assertThat(accepted.statusCode()).isEqualTo(202);
            location = Http.location(accepted);
            awaitStarted(imports);

            doomed.kill(); // every one mid-work: claimed, its payment row not committed
            long runningForMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - firstRunning);
            assertThat(runningForMillis).as("the first slow request ran for %d ms of its %d before the kill: this"
                    + " machine was too slow to catch the three in flight", runningForMillis, DELAY_MS)
                    .isLessThan(DELAY_MS - 2_000L);
            for (CompletableFuture<Void> request : lost) {
                request.get(30, TimeUnit.SECONDS);
            }
        }
        SoftAssertions softly = new SoftAssertions();
        for (SlowRequest request : requests) {
            softly.assertThat(paymentRows(request.orderId)).as("%s: the killed request's transaction never committed",
                    request.app).isZero();
        }
        softly.assertThat(paymentRows(importedOrder)).as("nothing committed by the killed worker").isZero();
        softly.assertAll();

        try (PayaraMicroProcess restarted = PayaraMicroProcess.start("crash-restarted", apps())) {
            for (SlowRequest request : requests) {
                request.retryUntilDone(restarted, softly);
            }
            Http imports = new Http(restarted.url("imports"));
            imports.awaitDone(location, Duration.ofSeconds(90));
            softly.assertThat(paymentRows(importedOrder)).as("the message processed exactly once").isEqualTo(1);
            System.out.println("worker crash: killed mid-message, restarted, taken over after the lease: "
                    + paymentRows(importedOrder) + " payment row; restarted node's workers: "
                    + text(imports.send(imports.request("api/imports/activity").GET().build())));
        }
        softly.assertAll();
    }

    /** A payment request whose first attempt is slow, sent to one application, then retried. */
    private static final class SlowRequest {
        final String app;
        final String key = newKey();
        final String orderId = "o-crash-http-" + UUID.randomUUID();
        // its first attempt in each JVM inserts the row, then takes DELAY_MS
        final String body = "{\"orderId\":\"" + orderId + "\",\"amount\":77,\"currency\":\"EUR\",\"delayMs\":" + DELAY_MS + "}";

        SlowRequest(String app) {
            this.app = app;
        }

        CompletableFuture<Void> sendTo(PayaraMicroProcess server) throws Exception {
            Http http = new Http(server.url(app));
            return CompletableFuture.runAsync(() -> {
                try {
                    http.postJson(PATH, key, body);
                } catch (IllegalStateException connectionReset) {
                    // the server dies under it
                }
            });
        }

        void awaitRunning(PayaraMicroProcess server) throws Exception {
            new Http(server.url(app)).awaitCount("api/payments/executions", 1);
        }

        void retryUntilDone(PayaraMicroProcess server, SoftAssertions softly) throws Exception {
            Http http = new Http(server.url(app));
            List<Integer> retries = new ArrayList<>();
            HttpResponse<byte[]> answer = http.postJson(PATH, key, body);
            retries.add(answer.statusCode());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (answer.statusCode() != 200 && System.nanoTime() < deadline) {
                Thread.sleep(500);
                answer = http.postJson(PATH, key, body);
                retries.add(answer.statusCode());
            }
            System.out.println("crash mid-request (" + app + "): killed while holding the claim; retries after the restart"
                    + " answered " + retries + "; payment rows " + paymentRows(orderId));
            softly.assertThat(answer.statusCode()).as("%s: the retries end in 200 (%s)", app, retries).isEqualTo(200);
            softly.assertThat(retries).as("%s: no retry got a 5xx", app).allMatch(status -> status < 500);
            softly.assertThat(paymentRows(orderId)).as("%s: exactly one payment", app).isEqualTo(1);
            softly.assertThat(http.postJson(PATH, key, body).body()).as("%s: later retries replay it", app)
                    .isEqualTo(answer.body());
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
