package dev.idempotency.it.contract;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.Http.text;
import static dev.idempotency.it.support.Problems.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.resources.Gates;
import dev.idempotency.it.resources.SupportCaseResource;
import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.OnSampleApp;

/**
 * The support look-up of the sample ({@code /api/idempotency-support}) on Payara Micro, the JPA
 * store on PostgreSQL: who may ask (401, 403 by role), what a completed payment's record shows
 * (the body only when asked, byte for byte), and the release of a hung owner's claim: refused
 * while its lease runs, done after it, the payment then run once, as a row in the database,
 * whatever the hung owner does later. A completed record is never released.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class SupportLookupIT extends OnSampleApp {

    private static final String LOOKUP = "api/idempotency-support/lookup";
    private static final String RELEASE = "api/idempotency-support/release";
    private static final String HUNG = "api/support-case/hung";
    private static final String PAYMENT_ENDPOINT = "dev.idempotency.sample.PaymentResource#create(dev.idempotency.sample.PaymentRequest)";
    private static final String HUNG_ENDPOINT = "dev.idempotency.it.resources.SupportCaseResource#hung(java.lang.String,"
            + "dev.idempotency.sample.PaymentRequest)";

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleApp("support", "idempotency.authentication-challenge=Basic realm=\"payments\"")
                .addClasses(SupportCaseResource.class, Gates.class);
    }

    /** @return the answer to a support question, from a demo user ({@code null}: anonymous) */
    private HttpResponse<byte[]> ask(String path, String question, String user) {
        return http.postJson(path, null, question, user);
    }

    private static String question(String endpoint, String caller, String key, boolean includeBody) {
        return Json.createObjectBuilder().add("endpoint", endpoint)
                .add("caller", caller == null ? jakarta.json.JsonValue.NULL : Json.createValue(caller))
                .add("key", key).add("includeBody", includeBody).build().toString();
    }

    private static JsonObject json(HttpResponse<byte[]> answer) {
        return Json.createReader(new StringReader(text(answer))).readObject();
    }

    private static String payment(String orderId, long amount) {
        return "{\"orderId\":\"" + orderId + "\",\"amount\":" + amount + ",\"currency\":\"EUR\"}";
    }

    /** @return the amounts of the order's payment rows in the database */
    private JsonArray rows(String orderId) {
        HttpResponse<byte[]> answer = http.send(http.request("api/support-case/amounts?orderId=" + orderId).GET().build());
        assertThat(answer.statusCode()).as(text(answer)).isEqualTo(200);
        return Json.createReader(new StringReader(text(answer))).readArray();
    }

    @Test
    void onlyAnAuthenticatedCallerWithTheRoleMayAskAndOnlyTheOperatorRoleReleases() {
        String ask = question(PAYMENT_ENDPOINT, "alice", newKey(), false);

        HttpResponse<byte[]> anonymous = ask(LOOKUP, ask, null);
        assertSupportProblem(anonymous, 401, "authentication-required");
        assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValue("Basic realm=\"payments\"");
        assertSupportProblem(ask(LOOKUP, ask, "alice"), 403, "support-role-required");
        assertSupportProblem(ask(LOOKUP, ask, "support"), 404, "no-record");
        assertSupportProblem(ask(RELEASE, ask, "support"), 403, "support-role-required");
        assertSupportProblem(ask(RELEASE, ask, "operator"), 404, "no-record");
        assertSupportProblem(ask(LOOKUP, "{\"endpoint\":\"com.acme.Nowhere#pay()\",\"caller\":null,\"key\":\"k\"}", "support"),
                400, "invalid-support-request");
        assertSupportProblem(ask(LOOKUP, "not json", "support"), 400, "invalid-support-request");
        HttpResponse<byte[]> plainText = http.send(http.request(RELEASE).header("Content-Type", "text/plain")
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("operator:operator".getBytes(
                        StandardCharsets.UTF_8)))
                .POST(HttpRequest.BodyPublishers.ofString(ask)).build());
        assertSupportProblem(plainText, 400, "invalid-support-request"); // what a page could make a browser send cross-site
        assertSupportProblem(ask(LOOKUP, "{\"endpoint\":\"" + PAYMENT_ENDPOINT + "\",\"key\":\"k\"}", "support"), 400,
                "invalid-support-request");
    }

    @Test
    void aCompletedPaymentShowsItsAnswerTheBodyOnlyWhenAskedAndIsNeverReleased() {
        String key = newKey();
        String orderId = "support-" + UUID.randomUUID();
        HttpResponse<byte[]> first = http.postJson(PAYMENTS, key, payment(orderId, 1250), "alice");
        assertThat(first.statusCode()).as(text(first)).isEqualTo(201);

        HttpResponse<byte[]> looked = ask(LOOKUP, question(PAYMENT_ENDPOINT, "alice", key, false), "support");
        assertThat(looked.statusCode()).as(text(looked)).isEqualTo(200);
        assertThat(looked.headers().firstValue("Cache-Control")).get().asString().contains("no-store");
        JsonObject record = json(looked);
        assertThat(record.getString("state")).isEqualTo("COMPLETED");
        assertThat(record.getBoolean("responseStored")).isTrue();
        assertThat(record.getInt("status")).isEqualTo(201);
        assertThat(record.getInt("bodySize")).isEqualTo(first.body().length);
        assertThat(record.containsKey("body")).as("no body unless asked").isFalse();
        assertThat(record.containsKey("leaseEnds")).isFalse();
        Instant claimedAt = Instant.parse(record.getString("claimedAt"));
        assertThat(Instant.parse(record.getString("expiresAt"))).as("the default ttl of 24 h")
                .isBetween(claimedAt.plus(Duration.ofHours(24)).minusSeconds(5), claimedAt.plus(Duration.ofHours(24)).plusSeconds(5));
        assertThat(text(looked)).as("the raw key never comes back").doesNotContain(key);

        JsonObject withBody = json(ask(LOOKUP, question(PAYMENT_ENDPOINT, "alice", key, true), "support"));
        assertThat(Base64.getDecoder().decode(withBody.getString("body"))).isEqualTo(first.body());
        assertThat(withBody.getJsonObject("headers").getJsonArray("Location").getString(0))
                .isEqualTo(first.headers().firstValue("Location").orElseThrow());

        assertSupportProblem(ask(LOOKUP, question(PAYMENT_ENDPOINT, "bob", key, false), "support"), 404, "no-record");
        assertSupportProblem(ask(RELEASE, question(PAYMENT_ENDPOINT, "alice", key, false), "operator"), 409, "not-releasable");
        HttpResponse<byte[]> replay = http.postJson(PAYMENTS, key, payment(orderId, 1250), "alice");
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(replay.body()).isEqualTo(first.body());
        assertThat(rows(orderId)).hasSize(1);
    }

    @Test
    void aHungOwnersClaimIsReleasedOnlyAfterItsLeaseAndThePaymentThenRunsOnce() throws Exception {
        String key = newKey();
        String orderId = "hung-" + UUID.randomUUID();
        String gate = "support-" + UUID.randomUUID();
        CompletableFuture<HttpResponse<byte[]>> hung = CompletableFuture.supplyAsync(
                () -> http.postJson(HUNG + "?gate=" + gate, key, payment(orderId, 100)));
        String ask = question(HUNG_ENDPOINT, null, key, false);
        JsonObject inProgress = awaitRecord(ask);
        assertThat(inProgress.getString("state")).isEqualTo("IN_PROGRESS");
        Instant leaseEnds = Instant.parse(inProgress.getString("leaseEnds"));
        assertThat(Duration.between(Instant.parse(inProgress.getString("claimedAt")), leaseEnds)).isEqualTo(Duration.ofSeconds(2));

        HttpResponse<byte[]> early = ask(RELEASE, ask, "operator");
        assertSupportProblem(early, 409, "lease-running");
        assertThat(early.headers().firstValue("Retry-After")).isPresent();
        assertProblem(http.postJson(HUNG, key, payment(orderId, 200)), 422, "key-reused");

        sleepUntil(leaseEnds.plusMillis(500));
        assertProblem(http.postJson(HUNG, key, payment(orderId, 200)), 422, "key-reused");
        HttpResponse<byte[]> released = ask(RELEASE, ask, "operator");
        assertThat(released.statusCode()).as(text(released)).isEqualTo(200);
        assertThat(json(released).getBoolean("released")).isTrue();
        assertSupportProblem(ask(LOOKUP, ask, "support"), 404, "no-record");

        HttpResponse<byte[]> corrected = http.postJson(HUNG, key, payment(orderId, 200));
        assertThat(corrected.statusCode()).as(text(corrected)).isEqualTo(200);
        http.send(http.request("api/support-case/gate/" + gate).POST(HttpRequest.BodyPublishers.noBody()).build());
        HttpResponse<byte[]> late = hung.get(40, TimeUnit.SECONDS);

        assertThat(late.statusCode()).as("the hung owner lost its claim: its work rolls back (" + text(late) + ")")
                .isEqualTo(409);
        JsonArray rows = rows(orderId);
        assertThat(rows).as("the payment ran once: the corrected request's row").hasSize(1);
        assertThat(rows.getJsonNumber(0).longValue()).isEqualTo(200);
        HttpResponse<byte[]> replay = http.postJson(HUNG, key, payment(orderId, 200));
        assertThat(replay.body()).isEqualTo(corrected.body());
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    }

    /** @return the record once the store holds one (the hung request was claimed), within 10 s */
    private JsonObject awaitRecord(String ask) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            HttpResponse<byte[]> answer = ask(LOOKUP, ask, "support");
            if (answer.statusCode() == 200) {
                return json(answer);
            }
            assertThat(System.nanoTime()).as("a record within 10 s; last: " + text(answer)).isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private static void sleepUntil(Instant when) throws InterruptedException {
        long millis = Duration.between(Instant.now(), when).toMillis();
        if (millis > 0) {
            Thread.sleep(millis);
        }
    }

    /** A problem from the support look-up: like its answers, never kept by a cache (it names key hashes, leases). */
    private static void assertSupportProblem(HttpResponse<byte[]> response, int status, String type) {
        assertProblem(response, status, type);
        assertThat(response.headers().firstValue("Cache-Control")).as("a support problem's Cache-Control").get()
                .asString().contains("no-store");
    }
}
