package dev.idempotency.it.serverlog;

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
 * Raw keys and request bodies never reach the server log, not even on the paths that log about a
 * key: a lease lost to a takeover, a response lost after the commit, a claim race on the
 * database's primary key, a reused key, malformed keys. The whole log of a Payara Micro of the
 * test's own is searched.
 */
class ServerLogIT {

    static final String RAW_KEY = "RAWKEY";
    static final String RAW_BODY = "RAWBODY";

    static WebArchive app() {
        return Deployments.sampleApp("logs", AtomicityResource.class.getName() + "/Idempotent/lease=PT2S\n")
                .addClasses(AtomicityResource.class, AtomicityResource.Receipt.class, AtomicityResource.BrokenWriter.class);
    }

    static String key() {
        return RAW_KEY + "-" + UUID.randomUUID();
    }

    static String order(String extra) {
        // the marker sits in a field the application ignores: only a component logging bodies could print it
        return "{\"orderId\":\"o-logs-" + UUID.randomUUID() + "\",\"amount\":9,\"currency\":\"EUR\",\"memo\":\"" + RAW_BODY
                + "-" + UUID.randomUUID() + "\"" + extra + "}";
    }

    @Test
    void noRawKeyOrBodyIsEverLogged() throws Exception {
        try (PayaraMicroProcess server = PayaraMicroProcess.start("logs", app())) {
            Http http = new Http(server.url("logs"));

            // a handler outliving its 2 s lease while a retry takes the key over: IDEMP0407
            String slowKey = key();
            String slow = order(",\"delayMs\":4000");
            CompletableFuture<HttpResponse<byte[]>> first = CompletableFuture.supplyAsync(
                    () -> http.postJson("api/atomicity/slow-first", slowKey, slow));
            http.awaitCount("api/payments/executions", 1);
            Thread.sleep(2_500); // the 2 s lease runs out while the handler sleeps 4 s
            assertThat(http.postJson("api/atomicity/slow-first", slowKey, slow).statusCode()).isEqualTo(200);
            assertProblem(first.get(30, TimeUnit.SECONDS), 409, "request-in-progress");

            // a response that fails after the commit: the outcome is lost
            http.postJson("api/atomicity/receipt", key(), order(""));

            // twenty requests racing for one key on the database's primary key
            List<HttpResponse<byte[]>> storm = http.postAllAtOnce("api/payments", key(), order(""), 20);
            assertThat(storm).extracting(HttpResponse::statusCode).contains(201);

            // a reused key, a failed payment, malformed keys
            String reused = key();
            http.postJson("api/payments", reused, order(""));
            assertProblem(http.postJson("api/payments", reused, order("")), 422, "key-reused");
            http.postJson("api/payments", key(), order(",\"failTimes\":1"));
            assertProblem(http.postJson("api/payments", key() + " with spaces", order("")), 400, "invalid-key");
            assertProblem(http.postJson("api/payments", "\"" + key(), order("")), 400, "invalid-key");
            assertProblem(http.postJson("api/payments", key() + "x".repeat(300), order("")), 400, "invalid-key");

            String log = server.log();
            System.out.println("server log: " + log.length() + " characters, " + count(log, "IDEMP") + " library messages");
            assertThat(log).as("the scenarios made the library log about keys: a lost lease, a lost response")
                    .contains("IDEMP0407").contains("IDEMP0408");
            assertThat(log).doesNotContain(RAW_KEY).doesNotContain(RAW_BODY);
        }
    }

    private static int count(String text, String needle) {
        int n = 0;
        for (int at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
            n++;
        }
        return n;
    }
}
