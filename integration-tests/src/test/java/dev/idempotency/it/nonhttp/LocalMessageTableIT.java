package dev.idempotency.it.nonhttp;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.Http.number;
import static dev.idempotency.it.support.Http.text;
import static dev.idempotency.it.support.PaymentsDatabase.failedImports;
import static dev.idempotency.it.support.PaymentsDatabase.importMessages;
import static dev.idempotency.it.support.PaymentsDatabase.paymentRows;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.Http;
import dev.idempotency.it.support.OnSampleApp;

/**
 * The local message table recipe on Payara Micro and PostgreSQL: {@code POST /api/imports}
 * accepts at once (202, replayed to retries, one message row), and three workers racing on the
 * same PENDING rows process each exactly once (one payment row per import).
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class LocalMessageTableIT extends OnSampleApp {

    static final String IMPORTS = "api/imports";

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleApp("imports", String.join("\n",
                "sample.imports.workers=3",
                "sample.imports.poll-interval=PT0.1S",
                "sample.imports.max-attempts=3",
                "dev.idempotency.sample.imports.ImportProcessor/process/Idempotent/lease=PT10S"));
    }

    static String order(String orderId, long delayMs) {
        return order(orderId, delayMs, 0);
    }

    static String order(String orderId, long delayMs, int failAttempts) {
        return "{\"orderId\":\"" + orderId + "\",\"amount\":300,\"currency\":\"EUR\",\"delayMs\":" + delayMs
                + ",\"failAttempts\":" + failAttempts + "}";
    }

    @Test
    void duplicateSubmissionsAreAcceptedOnceAndProcessedOnce() throws Exception {
        String key = newKey();
        String orderId = "o-import-" + UUID.randomUUID();
        String body = order(orderId, 0);
        List<HttpResponse<byte[]>> answers = new ArrayList<>(http.postAllAtOnce(IMPORTS, key, body, 10));
        for (int i = 0; i < 5; i++) {
            answers.add(http.postJson(IMPORTS, key, body));
        }

        HttpResponse<byte[]> accepted = answers.stream().filter(a -> a.statusCode() == 202).findFirst().orElseThrow();
        for (HttpResponse<byte[]> answer : answers) {
            assertThat(answer.statusCode()).as(text(answer)).isIn(202, 409);
            if (answer.statusCode() == 202) {
                assertThat(answer.body()).as("the same 202, replayed").isEqualTo(accepted.body());
            }
        }
        assertThat(importMessages(key)).as("one row in the local message table").isEqualTo(1);
        http.awaitDone(Http.location(accepted), Duration.ofSeconds(60));
        assertThat(paymentRows(orderId)).isEqualTo(1);
        assertThat(http.postJson(IMPORTS, key, body).body()).as("still the original 202").isEqualTo(accepted.body());
    }

    /**
     * The status of an import is its payer's: any caller holding its URL read another's payment id,
     * state and attempts (the recipe looked the row up by id alone, though it submits per payer).
     */
    @Test
    void theStatusOfAnImportIsOnlyItsPayers() {
        String accepted = Http.location(http.postJson(IMPORTS, newKey(), order("o-own-" + UUID.randomUUID(), 0), "alice"));

        assertThat(http.send(http.request(accepted).header("Authorization", basic("alice")).GET().build()).statusCode())
                .isEqualTo(200);
        assertThat(http.send(http.request(accepted).header("Authorization", basic("bob")).GET().build()).statusCode())
                .as("another caller").isEqualTo(404);
        assertThat(http.send(http.request(accepted).GET().build()).statusCode()).as("an anonymous one").isEqualTo(404);
    }

    static String basic(String user) {
        return "Basic " + java.util.Base64.getEncoder()
                .encodeToString((user + ":" + user).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void workersRacingOnTheSameRowsProcessEachOnce() throws Exception {
        String batch = "o-race-" + UUID.randomUUID() + "-";
        List<String> locations = new ArrayList<>();
        long skippedBefore = counter("skipped");
        for (int i = 0; i < 30; i++) {
            // 200 ms each: while one worker holds a row, the others meet its claim
            locations.add(Http.location(http.postJson(IMPORTS, newKey(), order(batch + i, 200))));
        }
        for (String location : locations) {
            http.awaitDone(location, Duration.ofSeconds(60));
        }
        for (int i = 0; i < 30; i++) {
            assertThat(paymentRows(batch + i)).as("order " + i).isEqualTo(1);
        }
        long skipped = counter("skipped") - skippedBefore;
        System.out.println("local message table: 30 imports, 3 workers: 30 processed once, " + skipped
                + " times a worker met another's claim and skipped the row");
        assertThat(skipped).as("the workers did race on the same rows").isPositive();
    }

    /**
     * Messages that keep failing (poison) neither starve the ones behind them nor stay for ever:
     * each failure makes a message wait longer (the workers read due messages, the longest waiting
     * first), and after {@code sample.imports.max-attempts} (3 here) it is given up, FAILED, without
     * a payment. Before, the workers read the 50 oldest PENDING rows on every pass, so 60 failing
     * ones at the head kept every newer message waiting, and they were tried for ever. A message
     * that fails twice is paid once, at its third attempt: the workers racing on it count each
     * failed attempt once.
     */
    @Test
    void messagesThatKeepFailingNeitherStarveNewerOnesNorStayForEver() throws Exception {
        String batch = "o-poison-" + UUID.randomUUID() + "-";
        List<String> poison = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            poison.add(Http.location(http.postJson(IMPORTS, newKey(), order(batch + i, 0, 1_000))));
        }
        String healthy = Http.location(http.postJson(IMPORTS, newKey(), order(batch + "healthy", 0)));
        String flaky = Http.location(http.postJson(IMPORTS, newKey(), order(batch + "flaky", 0, 2)));

        http.awaitDone(healthy, Duration.ofSeconds(30));
        String flakyDone = http.awaitDone(flaky, Duration.ofSeconds(30));

        assertThat(number(flakyDone, "attempts")).as("failed twice, then done").isEqualTo(2);
        assertThat(paymentRows(batch + "healthy")).isEqualTo(1);
        assertThat(paymentRows(batch + "flaky")).isEqualTo(1);
        for (int i = 0; i < poison.size(); i++) {
            String status = awaitState(poison.get(i), "FAILED", Duration.ofSeconds(60));
            assertThat(number(status, "attempts")).as(status).isEqualTo(3);
            assertThat(paymentRows(batch + i)).isZero();
        }
        assertThat(failedImports(batch)).as("the healthy and the flaky one are not given up").isEqualTo(60);
    }

    String awaitState(String location, String state, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String status = "";
        while (System.nanoTime() < deadline) {
            status = text(http.send(http.request(location).GET().build()));
            if (status.contains("\"state\":\"" + state + "\"")) {
                return status;
            }
            Thread.sleep(100);
        }
        throw new AssertionError(location + " not " + state + " within " + timeout + ": " + status);
    }

    long counter(String name) {
        String json = text(http.send(http.request(IMPORTS + "/activity").GET().build()));
        return number(json, name);
    }
}
