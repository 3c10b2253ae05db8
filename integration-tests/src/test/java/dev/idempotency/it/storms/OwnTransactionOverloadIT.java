package dev.idempotency.it.storms;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.overload.Charger;
import dev.idempotency.it.overload.CommitTogether;
import dev.idempotency.it.overload.OverloadResource;
import dev.idempotency.it.overload.SmallPool;
import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.Http;
import dev.idempotency.it.support.PaymentsDatabase;
import dev.idempotency.it.support.PostgreSqlDataSource;

/**
 * The JPA store's own transactions under a bounded overload, on a real server and pool: twelve
 * callers at once, each in a transaction that holds one of the pool's four connections, each
 * claiming a key in the store's own transaction (which needs a second connection), with
 * {@code idempotency.jpa.max-own-transactions=2}. Without a bound below the pool's size every
 * connection ends up held by a caller waiting for another, and each waits out the 30 s of the
 * store's wait, then {@code 503}. With it, a claim past the bound is refused at once and its
 * caller gives its connection back: every answer comes fast, a payment or a {@code 503} problem
 * with {@code Retry-After}, and the database holds exactly the payments answered {@code 201}.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class OwnTransactionOverloadIT {

    static final int CALLERS = 12;

    @Deployment(testable = false)
    static WebArchive deployment() {
        WebArchive archive = Deployments.sampleApp("overload", "idempotency.jpa.max-own-transactions=2\n");
        archive.deleteClass(PostgreSqlDataSource.class);
        return archive.addClasses(SmallPool.class, Charger.class, OverloadResource.class, CommitTogether.class);
    }

    @ArquillianResource
    URL url;

    @Test
    void callersPastTheBoundGetFast503sNeverAHangAndEveryPaymentAnswered201IsInTheDatabaseOnce() throws Exception {
        Http http = new Http(url);
        String run = UUID.randomUUID().toString().substring(0, 8);
        // cold: the first calls after the deployment also read the database's clock in transactions of
        // the store's own (before the fix, every caller queued 30 s behind the first reading); then warm
        overload(http, run + "-cold");
        overload(http, run + "-warm");
    }

    /**
     * As many callers as the pool has connections, each in a transaction that paid (the library's
     * statement in it took a connection), commit at once: the pool is dry. Whatever the library
     * still writes for them must not need a second connection then (before the fix, the outcome
     * was stored after the commit, in a transaction of the store's own: two callers waited for a
     * connection the others held, the others 30 s for one of the two own transactions, and their
     * results were lost). Every caller is answered fast, and every retry gets the first answer.
     */
    @Test
    void callersCommittingAtOnceWithEveryConnectionHeldAreAnsweredFastAndTheirRetriesReplayed() throws Exception {
        Http http = new Http(url);
        String run = UUID.randomUUID().toString().substring(0, 8);
        ExecutorService callers = Executors.newFixedThreadPool(SmallPool.SIZE);
        List<Future<Answer>> answers = new ArrayList<>();
        try {
            for (int i = 0; i < SmallPool.SIZE; i++) {
                String orderId = "together-" + run + "-" + i;
                answers.add(callers.submit(() -> {
                    long started = System.nanoTime();
                    HttpResponse<byte[]> response = http.send(http.request("api/overload/together/" + orderId)
                            .POST(HttpRequest.BodyPublishers.noBody()).build());
                    return new Answer(orderId, response, (System.nanoTime() - started) / 1_000_000);
                }));
                // one claim at a time (each needs one of the store's two own transactions and a free
                // connection): only the commits come together
                Thread.sleep(1_500);
            }
            for (Future<Answer> future : answers) {
                Answer answer = future.get(90, TimeUnit.SECONDS);
                String body = new String(answer.response().body(), StandardCharsets.UTF_8);
                assertThat(answer.response().statusCode()).as(answer.orderId() + ": " + body).isEqualTo(201);
                assertThat(answer.millis()).as(answer.orderId() + " answered after").isLessThan(15_000);
            }
            for (Future<Answer> future : answers) {
                String orderId = future.get().orderId();
                HttpResponse<byte[]> retry = http.send(http.request("api/overload/" + orderId)
                        .POST(HttpRequest.BodyPublishers.noBody()).build());
                assertThat(retry.statusCode()).as("retry of " + orderId + ": " + Http.text(retry)).isEqualTo(201);
                assertThat(Http.text(retry)).as("the retry's answer").isEqualTo(orderId);
                assertThat(PaymentsDatabase.paymentRows(orderId)).as("payments of " + orderId).isEqualTo(1);
            }
        } finally {
            callers.shutdownNow();
        }
    }

    private static void overload(Http http, String run) throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
        List<Future<Answer>> answers = new ArrayList<>();
        try {
            for (int i = 0; i < CALLERS; i++) {
                String orderId = "overload-" + run + "-" + i;
                Callable<Answer> call = () -> {
                    long started = System.nanoTime();
                    HttpResponse<byte[]> response = http.send(http.request("api/overload/" + orderId)
                            .POST(HttpRequest.BodyPublishers.noBody()).build());
                    return new Answer(orderId, response, (System.nanoTime() - started) / 1_000_000);
                };
                answers.add(callers.submit(call));
            }
            int created = 0;
            int refused = 0;
            long slowest = 0;
            for (Future<Answer> future : answers) {
                Answer answer = future.get(90, TimeUnit.SECONDS);
                HttpResponse<byte[]> response = answer.response();
                String body = new String(response.body(), StandardCharsets.UTF_8);
                slowest = Math.max(slowest, answer.millis());
                long rows = PaymentsDatabase.paymentRows(answer.orderId());
                if (response.statusCode() == 201) {
                    created++;
                    assertThat(rows).as("payments of " + answer.orderId() + ", answered 201").isEqualTo(1);
                } else {
                    refused++;
                    assertThat(response.statusCode()).as(answer.orderId() + ": " + body).isEqualTo(503);
                    assertThat(body).contains("store-unavailable");
                    assertThat(response.headers().firstValue("Retry-After")).isPresent();
                    assertThat(rows).as("payments of " + answer.orderId() + ", answered 503").isZero();
                }
                // the store waits 30 s for its own transaction, the pool 60 s for a connection: a hang shows
                assertThat(answer.millis()).as(answer.orderId() + " answered " + response.statusCode() + " after")
                        .isLessThan(15_000);
            }
            System.out.println("own-transaction overload (" + run + "): " + CALLERS + " callers, pool " + SmallPool.SIZE
                    + ", bound 2: " + created + " x 201, " + refused + " x 503, slowest answer " + slowest + " ms");
            assertThat(created).as("payments made").isPositive();
            assertThat(refused).as("callers refused past the bound").isPositive();
        } finally {
            callers.shutdownNow();
        }
    }

    record Answer(String orderId, HttpResponse<byte[]> response, long millis) {
    }
}
