package dev.idempotency.it.contract;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.Http.text;
import static dev.idempotency.it.support.Problems.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import org.assertj.core.api.SoftAssertions;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.resources.CredentialsResource;
import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.MalformedRequestCorpus;
import dev.idempotency.it.support.MalformedRequestCorpus.Case;
import dev.idempotency.it.support.MalformedRequestCorpus.RefusedBy;
import dev.idempotency.it.support.OnSampleApp;
import dev.idempotency.it.support.RawHttp;

/**
 * Hostile and bad input against the sample on Payara Micro (JPA store, PostgreSQL): a corpus of
 * malformed requests, bodies that differ only after their first 10 MiB, credentials in answers,
 * and keys tried across callers. Nothing runs the handler that should not, and no answer is a 5xx.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class HostileInputIT extends OnSampleApp {


    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleApp("hostile", "idempotency.stored-headers=X-Request-Note\n")
                .addClass(CredentialsResource.class);
    }

    @Test
    void everyMalformedRequestIsA4xxWithoutStackTraceAndRunsNothing() throws Exception {
        List<Case> corpus = MalformedRequestCorpus.against(http.base().resolve(PAYMENTS).getRawPath(), url.getPort(),
                "/hostile");
        assertThat(corpus).hasSizeGreaterThanOrEqualTo(100);
        long before = executions();
        Map<String, Integer> tally = new TreeMap<>();
        SoftAssertions softly = new SoftAssertions();
        for (Case malformed : corpus) {
            RawHttp.Answer answer = RawHttp.exchange(url.getPort(), malformed.bytes());
            boolean problem = answer.head().toLowerCase().contains("content-type: application/problem+json");
            tally.merge(answer.status() + (problem ? " problem+json" : " from the server"), 1, Integer::sum);
            if (answer.status() == 0 && malformed.refusedBy() == RefusedBy.SERVER_OR_CLOSED) {
                continue;
            }
            if (malformed.refusedBy() == RefusedBy.SERVER_EMPTY_200) {
                softly.assertThat(answer.status()).as(malformed.name()).isEqualTo(200);
                softly.assertThat(answer.body()).as(malformed.name()).isEmpty();
                continue;
            }
            softly.assertThat(answer.status()).as(malformed.name() + ": " + answer.head() + "\n" + answer.body())
                    .isBetween(400, 499);
            softly.assertThat(answer.head() + answer.body()).as(malformed.name() + ": no stack trace")
                    .doesNotContain("Exception").doesNotContain("\tat ").doesNotContain("at java.");
            softly.assertThat(answer.body()).as(malformed.name() + ": nothing of the server's files")
                    .doesNotContain("<web-app").doesNotContain("root:x:").doesNotContain("stored-headers");
            if (malformed.refusedBy() == RefusedBy.LIBRARY || malformed.refusedBy() == RefusedBy.APPLICATION) {
                softly.assertThat(problem).as(malformed.name() + ": a problem+json answer, got " + answer.head()).isTrue();
            }
        }
        long ran = executions() - before;
        System.out.println("malformed corpus: " + corpus.size() + " requests, by answer: " + tally
                + "; handler executions: " + ran);
        softly.assertThat(ran).as("no malformed request ran the handler").isZero();
        softly.assertAll();
    }

    @Test
    void aBodyCutShortLeavesItsKeyFreeForTheWholeRequest() throws Exception {
        String key = newKey();
        String order = "{\"orderId\":\"o-cut-" + UUID.randomUUID() + "\",\"amount\":3,\"currency\":\"EUR\"}";
        long before = executions();
        String path = http.base().resolve(PAYMENTS).getRawPath();
        byte[] cut = ("POST " + path + " HTTP/1.1\r\nHost: localhost:" + url.getPort() + "\r\nConnection: close\r\n"
                + "Content-Type: application/json\r\nIdempotency-Key: " + key + "\r\nContent-Length: " + (order.length() + 100)
                + "\r\n\r\n" + order).getBytes(java.nio.charset.StandardCharsets.US_ASCII);

        RawHttp.Answer answer = RawHttp.exchange(url.getPort(), cut);

        assertThat(answer.status()).as("no answer, or a 4xx").isIn(0, 400);
        HttpResponse<byte[]> whole = http.postJson(PAYMENTS, key, order);
        assertThat(whole.statusCode()).as("the key was not burnt by the cut request: " + text(whole)).isEqualTo(201);
        assertThat(whole.headers().firstValue("Idempotent-Replayed")).as("the cut request never ran").isEmpty();
        assertThat(executions() - before).isEqualTo(1);
    }

    @Test
    void bodiesEqualForTheirFirst10MiBAndDifferentAfterAre422NeverAReplay() {
        String key = newKey();
        String head = "{\"orderId\":\"o-10mib-" + UUID.randomUUID() + "\",\"amount\":1,\"currency\":\"EUR\",\"memo\":\""
                + "x".repeat(10 << 20);
        long before = executions();

        HttpResponse<byte[]> first = http.postJson(PAYMENTS, key, head + "A\"}");
        HttpResponse<byte[]> other = http.postJson(PAYMENTS, key, head + "B\"}");
        HttpResponse<byte[]> same = http.postJson(PAYMENTS, key, head + "A\"}");

        assertThat(first.statusCode()).isEqualTo(201);
        assertProblem(other, 422, "key-reused");
        assertThat(other.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(same.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(same.body()).isEqualTo(first.body());
        assertThat(executions() - before).isEqualTo(1);
    }

    @Test
    void aReplayNeverCarriesCookiesOrCredentials() {
        String key = newKey();
        HttpResponse<byte[]> first = http.postJson("api/credentials", key, "{}");
        HttpResponse<byte[]> replay = http.postJson("api/credentials", key, "{}");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("Authorization")).as("the first answer has them").isPresent();
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(replay.headers().firstValue("X-Request-Note")).as("a configured header is replayed").hasValue("kept");
        for (String credential : List.of("Set-Cookie", "Authorization", "Proxy-Authorization", "WWW-Authenticate",
                "Proxy-Authenticate")) {
            assertThat(replay.headers().allValues(credential)).as(credential).isEmpty();
        }
        assertThat(text(replay)).doesNotContain("s3cr3t");
    }

    @Test
    void aKeyUsedByAliceTellsBobAndAnonymousCallersNothing() {
        String key = newKey();
        String alices = "{\"orderId\":\"o-alice-" + UUID.randomUUID() + "\",\"amount\":5,\"currency\":\"EUR\"}";
        String others = "{\"orderId\":\"o-other-" + UUID.randomUUID() + "\",\"amount\":6,\"currency\":\"EUR\"}";
        long before = executions();

        HttpResponse<byte[]> alice = http.postJson(PAYMENTS, key, alices, "alice");
        // the same key with another body: for alice a 422, for anyone else a new payment of their own
        HttpResponse<byte[]> bob = http.postJson(PAYMENTS, key, others, "bob");
        HttpResponse<byte[]> anonymous = http.postJson(PAYMENTS, key, others, null);
        HttpResponse<byte[]> bobWithAlicesBody = http.postJson(PAYMENTS, newKey(), alices, "bob");
        HttpResponse<byte[]> aliceAgain = http.postJson(PAYMENTS, key, others, "alice");

        assertThat(alice.statusCode()).isEqualTo(201);
        assertThat(bob.statusCode()).isEqualTo(201);
        assertThat(text(bob)).contains("\"payer\":\"bob\"").doesNotContain("o-alice");
        assertThat(anonymous.statusCode()).isEqualTo(201);
        assertThat(text(anonymous)).contains("\"payer\":\"anonymous\"");
        assertThat(bobWithAlicesBody.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertProblem(aliceAgain, 422, "key-reused");
        assertThat(executions() - before).isEqualTo(4);
    }
}
