package dev.idempotency.it.contract;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.PaymentsDatabase.paymentRows;
import static dev.idempotency.it.support.PaymentsDatabase.recordState;
import static dev.idempotency.it.support.Problems.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.resources.AtomicityResource;
import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.OnSampleApp;

/**
 * The JPA store's guarantee, checked in PostgreSQL itself: the payment rows and the idempotency
 * record commit together or not at all. A failure leaves neither; a lost response never lets a
 * retry pay twice; a handler that outlived its lease cannot commit over the request that took the
 * key over.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class AtomicCompletionIT extends OnSampleApp {

    static final String PAYMENTS_ENDPOINT = "dev.idempotency.sample.PaymentResource#create(dev.idempotency.sample.PaymentRequest)";
    static final String RECEIPT = "api/atomicity/receipt";
    static final String RECEIPT_ENDPOINT = AtomicityResource.class.getName() + "#receipt(dev.idempotency.sample.PaymentRequest)";
    static final String RECEIPT_WITHOUT_TRANSACTION = "api/atomicity/receipt-without-transaction";
    static final String SLOW_FIRST = "api/atomicity/slow-first";
    static final String FIXED_ID = "api/atomicity/fixed-id";
    static final String FIXED_ID_ENDPOINT = AtomicityResource.class.getName() + "#fixedId(dev.idempotency.sample.PaymentRequest)";
    static final Duration LEASE = Duration.ofSeconds(2);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleApp("atomic", String.join("\n",
                AtomicityResource.class.getName() + "/Idempotent/lease=" + LEASE))
                .addClasses(AtomicityResource.class, AtomicityResource.Receipt.class, AtomicityResource.BrokenWriter.class);
    }

    static String order(String extra) {
        return "{\"orderId\":\"o-atomic-" + UUID.randomUUID() + "\",\"amount\":700,\"currency\":\"EUR\"" + extra + "}";
    }

    static String orderId(String body) {
        return body.replaceAll(".*\"orderId\":\"([^\"]+)\".*", "$1");
    }

    @Test
    void aHandlerThatFailsAfterInsertingLeavesNeitherTheRowNorARecordAndItsRetryInsertsOne() {
        String key = newKey();
        String body = order(",\"failTimes\":1");

        HttpResponse<byte[]> failed = http.postJson(PAYMENTS, key, body);

        assertThat(failed.statusCode()).isEqualTo(502);
        assertThat(paymentRows(orderId(body))).as("the inserted row rolled back").isZero();
        assertThat(recordState(PAYMENTS_ENDPOINT, null, key)).as("no record: the claim was released").isEmpty();

        HttpResponse<byte[]> retried = http.postJson(PAYMENTS, key, body);

        assertThat(retried.statusCode()).isEqualTo(201);
        assertThat(paymentRows(orderId(body))).isEqualTo(1);
        assertThat(recordState(PAYMENTS_ENDPOINT, null, key)).contains("COMPLETED");
        HttpResponse<byte[]> replayed = http.postJson(PAYMENTS, key, body);
        assertThat(replayed.body()).isEqualTo(retried.body());
        assertThat(paymentRows(orderId(body))).isEqualTo(1);
    }

    @Test
    void aResponseLostAfterTheCommitNeverLetsARetryRunTheWorkAgain() throws Exception {
        String key = newKey();
        String body = order("");

        try {
            http.postJson(RECEIPT, key, body);
        } catch (IllegalStateException brokenConnection) {
            // the response may be a 500 or no response at all: either way it is lost
        }

        assertThat(paymentRows(orderId(body))).as("the work committed").isEqualTo(1);
        assertThat(recordState(RECEIPT_ENDPOINT, null, key)).as("marked in the same transaction").contains("EXECUTED");
        assertProblem(http.postJson(RECEIPT, key, body), 409, "request-in-progress");

        // Once the lease given for storing the response ran out, the answer is final.
        HttpResponse<byte[]> answer = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            answer = http.postJson(RECEIPT, key, body);
            if (answer.statusCode() != 409) {
                break;
            }
            Thread.sleep(250);
        }
        assertProblem(answer, 410, "response-lost");
        assertThat(paymentRows(orderId(body))).as("never paid twice").isEqualTo(1);
    }

    @Test
    void anAnswerThatCannotBeWrittenAfterWorkWithoutATransactionNeverLetsARetryRunItAgain() {
        String key = newKey();
        String body = order("");
        long before = executions();

        try {
            http.postJson(RECEIPT_WITHOUT_TRANSACTION, key, body);
        } catch (IllegalStateException brokenConnection) {
            // the response may be a 500 or no response at all: either way it is lost
        }
        HttpResponse<byte[]> retry = http.postJson(RECEIPT_WITHOUT_TRANSACTION, key, body);

        assertProblem(retry, 410, "response-not-stored");
        assertThat(executions() - before).as("the work ran once").isEqualTo(1);
    }

    /** Sends a slow first request and returns once it runs and its lease ran out (it is still running). */
    private Future<HttpResponse<byte[]>> sendAndOutliveItsLease(ExecutorService sender, String key, String body,
            long executionsBefore) throws InterruptedException {
        Future<HttpResponse<byte[]>> slow = sender.submit(() -> http.postJson(SLOW_FIRST, key, body));
        http.awaitCount(PAYMENTS + "/executions", executionsBefore + 1);
        Thread.sleep(LEASE.toMillis() + 500);
        return slow;
    }

    @Test
    void aHandlerThatOutlivesItsLeaseRollsBackWhenAnotherRequestTookTheKeyOver() throws Exception {
        String key = newKey();
        String body = order(",\"delayMs\":" + LEASE.multipliedBy(2).toMillis());
        long before = executions();
        ExecutorService sender = Executors.newSingleThreadExecutor();
        try {
            Future<HttpResponse<byte[]>> slow = sendAndOutliveItsLease(sender, key, body, before);

            HttpResponse<byte[]> takeover = http.postJson(SLOW_FIRST, key, body);
            HttpResponse<byte[]> first = slow.get(60, TimeUnit.SECONDS);

            assertThat(takeover.statusCode()).as(new String(takeover.body())).isEqualTo(200);
            assertProblem(first, 409, "request-in-progress");
            assertThat(executions() - before).as("both ran").isEqualTo(2);
            assertThat(paymentRows(orderId(body))).as("only the owner's work committed").isEqualTo(1);
            assertThat(http.postJson(SLOW_FIRST, key, body).body()).isEqualTo(takeover.body());
        } finally {
            sender.shutdownNow();
        }
    }

    @Test
    void aRequestSlowerThanItsLeaseThatNobodyTookOverCommitsAndReplays() throws Exception {
        String key = newKey();
        String body = order(",\"delayMs\":" + LEASE.multipliedBy(2).toMillis());

        HttpResponse<byte[]> slow = http.postJson(SLOW_FIRST, key, body);

        assertThat(slow.statusCode()).as(new String(slow.body())).isEqualTo(200);
        assertThat(paymentRows(orderId(body))).isEqualTo(1);
        HttpResponse<byte[]> replayed = http.postJson(SLOW_FIRST, key, body);
        assertThat(replayed.statusCode()).isEqualTo(200);
        assertThat(replayed.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(replayed.body()).isEqualTo(slow.body());
        assertThat(paymentRows(orderId(body))).isEqualTo(1);
    }

    @Test
    void anotherRequestWithTheKeyOfASlowOneIsRefusedAfterTheLeaseToo() throws Exception {
        String key = newKey();
        String body = order(",\"delayMs\":" + LEASE.multipliedBy(2).toMillis());
        String other = order("");
        long before = executions();
        ExecutorService sender = Executors.newSingleThreadExecutor();
        try {
            Future<HttpResponse<byte[]>> slow = sendAndOutliveItsLease(sender, key, body, before);

            assertProblem(http.postJson(SLOW_FIRST, key, other), 422, "key-reused");
            HttpResponse<byte[]> first = slow.get(60, TimeUnit.SECONDS);

            assertThat(first.statusCode()).as("the key's owner keeps its payment").isEqualTo(200);
            assertThat(paymentRows(orderId(body))).isEqualTo(1);
            assertThat(paymentRows(orderId(other))).as("the other body never ran").isZero();
            assertThat(http.postJson(SLOW_FIRST, key, body).body()).isEqualTo(first.body());
        } finally {
            sender.shutdownNow();
        }
    }

    @Test
    void anApplicationConstraintViolationReachesTheApplicationNotAStoreFailureAndReleasesTheKey() {
        String body = order("");
        assertThat(http.postJson(FIXED_ID, newKey(), body).statusCode()).isEqualTo(200);
        String key = newKey();

        HttpResponse<byte[]> violating = http.postJson(FIXED_ID, key, body);

        assertThat(violating.statusCode()).as(new String(violating.body())).isNotEqualTo(503).isGreaterThanOrEqualTo(400);
        assertThat(new String(violating.body())).doesNotContain("store-unavailable");
        assertThat(violating.headers().firstValue("Retry-After")).as("nothing to retry").isEmpty();
        assertThat(recordState(FIXED_ID_ENDPOINT, null, key)).as("released: nothing happened").isEmpty();
        assertThat(paymentRows(orderId(body))).isEqualTo(1);
    }
}
