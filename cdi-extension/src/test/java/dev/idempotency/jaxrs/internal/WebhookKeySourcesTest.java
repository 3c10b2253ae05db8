package dev.idempotency.jaxrs.internal;

import static dev.idempotency.IdempotencyOutcome.CLAIMED;
import static dev.idempotency.IdempotencyOutcome.COMPLETED;
import static dev.idempotency.IdempotencyOutcome.MISMATCH;
import static dev.idempotency.IdempotencyOutcome.REPLAYED;
import static dev.idempotency.jaxrs.internal.FakeRequests.REPLAYED_HEADER;
import static dev.idempotency.jaxrs.internal.FakeRequests.post;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import jakarta.ws.rs.core.Response;

import org.junit.jupiter.api.Test;

import dev.idempotency.jaxrs.internal.FakeRequests.Answer;
import dev.idempotency.jaxrs.internal.FakeRequests.Library;
import dev.idempotency.jaxrs.internal.FakeRequests.Server;

/**
 * Where a webhook receiver's key comes from, in this JVM: a header of the sender's
 * ({@code keyHeader}) or a JSON Pointer into the body ({@code keyFromBody}). A redelivery with
 * the same key source replays the first answer and runs nothing; a request without it is refused
 * with a problem that names where the key was looked for.
 */
class WebhookKeySourcesTest {

    private static final String PUSH = "{\"ref\":\"refs/heads/main\",\"after\":\"9f2c1e\"}";
    private static final String CHARGE_SUCCEEDED = "{\"id\":\"evt_1NG8Du2eZvKYlo2C\",\"type\":\"charge.succeeded\"}";

    private final Library library = new Library();
    private final AtomicInteger runs = new AtomicInteger();

    /** Answers with the number of this execution: a replay shows the first one's. */
    private Function<String, Response> receiver() {
        return body -> Response.ok("{\"execution\":" + runs.incrementAndGet() + "}").type("application/json").build();
    }

    @Test
    void aGitHubRedeliveryWithTheSameDeliveryIdReplaysTheFirstAnswerAndRunsNothing() {
        Server server = library.server("github");

        Answer first = server.send(post("/hooks/github", PUSH).header("X-GitHub-Delivery", "72d3162e-cc78-11e3"),
                receiver());
        Answer redelivery = server.send(post("/hooks/github", PUSH).header("X-GitHub-Delivery", "72d3162e-cc78-11e3"),
                receiver());
        Answer next = server.send(post("/hooks/github", PUSH).header("X-GitHub-Delivery", "8a0f5b7c-cc78-11e3"),
                receiver());

        assertThat(first.status).isEqualTo(200);
        assertThat(redelivery.body).as("the first answer's bytes").isEqualTo(first.body);
        assertThat(redelivery.header(REPLAYED_HEADER)).isEqualTo("true");
        assertThat(next.text()).as("another delivery runs").isEqualTo("{\"execution\":2}");
        assertThat(server.executions()).isEqualTo(2);
        assertThat(library.outcomes()).containsExactly(CLAIMED, COMPLETED, REPLAYED, CLAIMED, COMPLETED);
    }

    @Test
    void aDeliveryWithoutItsHeaderGets400MissingKeyNamingTheHeaderEvenWithAnIdempotencyKey() {
        Server server = library.server("github");

        Answer answer = server.send(post("/hooks/github", PUSH).key("k-1"), receiver());

        assertThat(answer.status).isEqualTo(400);
        assertThat(answer.problemType()).isEqualTo("missing-key");
        assertThat(answer.problem().getString("detail")).isEqualTo("This endpoint requires an X-GitHub-Delivery header.");
        assertThat(server.executions()).isZero();
        assertThat(library.store.calls()).isEmpty();
    }

    @Test
    void aMalformedDeliveryHeaderGets400InvalidKeyNamingTheHeader() {
        Server server = library.server("github");

        List<Answer> answers = List.of(
                server.send(post("/hooks/github", PUSH).header("X-GitHub-Delivery", "two words"), receiver()),
                server.send(post("/hooks/github", PUSH).header("X-GitHub-Delivery", "a").header("X-GitHub-Delivery", "b"),
                        receiver()));

        for (Answer answer : answers) {
            assertThat(answer.status).as(answer.toString()).isEqualTo(400);
            assertThat(answer.problemType()).isEqualTo("invalid-key");
            assertThat(answer.problem().getString("detail")).contains("X-GitHub-Delivery").doesNotContain("IDEMP");
        }
        assertThat(server.executions()).isZero();
    }

    @Test
    void theSameDeliveryIdWithAnotherPayloadGets422WhereTheWholeBodyCounts() {
        Server server = library.server("github");
        server.send(post("/hooks/github", PUSH).header("X-GitHub-Delivery", "d-1"), receiver());

        Answer reuse = server.send(post("/hooks/github", PUSH.replace("9f2c1e", "000000"))
                .header("X-GitHub-Delivery", "d-1"), receiver());

        assertThat(reuse.status).isEqualTo(422);
        assertThat(reuse.problem().getString("detail"))
                .isEqualTo("This X-GitHub-Delivery was used with a different request (body, method, path or query).");
        assertThat(server.executions()).isEqualTo(1);
        assertThat(library.outcomes()).containsExactly(CLAIMED, COMPLETED, MISMATCH);
    }

    @Test
    void aCloudEventRedeliveredWithTheSameCeIdReplaysEvenWithAnotherBody() {
        Server server = library.server("cloudEvent");
        Answer first = server.send(post("/hooks/events", "{\"attempt\":1}").header("ce-id", "A234-1234-1234")
                .header("ce-source", "/mycontext"), receiver());

        Answer redelivery = server.send(post("/hooks/events", "{\"attempt\":2}").header("Ce-Id", "A234-1234-1234")
                .header("ce-source", "/mycontext"), receiver());

        assertThat(redelivery.body).as("fingerprint NONE: the id alone decides").isEqualTo(first.body);
        assertThat(redelivery.header(REPLAYED_HEADER)).isEqualTo("true");
        assertThat(server.executions()).isEqualTo(1);
    }

    @Test
    void aStripeEventRedeliveredWithTheSameIdInItsBodyReplaysAndAnotherEventRuns() {
        Server server = library.server("stripe");

        Answer first = server.send(post("/hooks/stripe", CHARGE_SUCCEEDED), receiver());
        Answer redelivery = server.send(post("/hooks/stripe", CHARGE_SUCCEEDED), receiver());
        Answer other = server.send(post("/hooks/stripe", CHARGE_SUCCEEDED.replace("evt_1NG8", "evt_2XX9")), receiver());
        Answer sameIdOtherPayload = server.send(post("/hooks/stripe",
                CHARGE_SUCCEEDED.replace("charge.succeeded", "charge.failed")), receiver());

        assertThat(first.status).isEqualTo(200);
        assertThat(redelivery.body).isEqualTo(first.body);
        assertThat(redelivery.header(REPLAYED_HEADER)).isEqualTo("true");
        assertThat(other.text()).isEqualTo("{\"execution\":2}");
        assertThat(sameIdOtherPayload.status).isEqualTo(422);
        assertThat(sameIdOtherPayload.problem().getString("detail"))
                .isEqualTo("This idempotency key was used with a different request (body, method, path or query).");
        assertThat(server.executions()).isEqualTo(2);
    }

    @Test
    void aBodyWithoutAStringOrNumberAtThePointerGets400MissingKeyNamingThePointer() {
        Server server = library.server("stripe");

        List<String> keyless = List.of("{\"type\":\"charge.succeeded\"}", "{\"id\":null}", "{\"id\":true}",
                "{\"id\":{\"value\":\"evt_1\"}}", "[\"evt_1\"]", "\"evt_1\"", "");
        for (String body : keyless) {
            Answer answer = server.send(post("/hooks/stripe", body), receiver());

            assertThat(answer.status).as(body).isEqualTo(400);
            assertThat(answer.problemType()).isEqualTo("missing-key");
            assertThat(answer.problem().getString("detail")).as(body).contains("/id").doesNotContain("IDEMP");
        }
        assertThat(server.executions()).isZero();
        assertThat(library.store.calls()).isEmpty();
    }

    @Test
    void anEmptyOrBlankKeyInTheBodyGets400InvalidKey() {
        Server server = library.server("stripe");

        for (String id : List.of("", "   ")) {
            Answer answer = server.send(post("/hooks/stripe", "{\"id\":\"" + id + "\"}"), receiver());

            assertThat(answer.status).as("'%s'", id).isEqualTo(400);
            assertThat(answer.problemType()).isEqualTo("invalid-key");
        }
        assertThat(server.executions()).isZero();
    }

    @Test
    void aBodyThatIsNotJsonGets400MissingKeySayingSo() {
        Server server = library.server("stripe");

        List<Answer> answers = List.of(
                server.send(post("/hooks/stripe", "id=evt_1"), receiver()),
                server.send(post("/hooks/stripe", CHARGE_SUCCEEDED + " trailing"), receiver()),
                server.send(post("/hooks/stripe", "{\"id\":\"evt_1\""), receiver()));

        for (Answer answer : answers) {
            assertThat(answer.status).isEqualTo(400);
            assertThat(answer.problemType()).isEqualTo("missing-key");
            assertThat(answer.problem().getString("detail"))
                    .isEqualTo("This endpoint takes its idempotency key from the JSON body at /id, and the body is not JSON.");
        }
        assertThat(server.executions()).isZero();
    }

    @Test
    void aNumberAtThePointerIsTheKeysExactDecimalDigits() {
        Server server = library.server("stripe");
        server.send(post("/hooks/stripe", "{\"id\":1000}"), receiver());

        Answer sameNumber = server.send(post("/hooks/stripe", "{\"id\":1e3}"), receiver());
        Answer beyondADouble = server.send(post("/hooks/stripe", "{\"id\":9007199254740993}"), receiver());
        Answer itsNeighbour = server.send(post("/hooks/stripe", "{\"id\":9007199254740992}"), receiver());

        assertThat(sameNumber.status).as("1e3 is the key 1000: the same key, another body").isEqualTo(422);
        assertThat(beyondADouble.status).isEqualTo(200);
        assertThat(itsNeighbour.status).as("no rounding: two keys").isEqualTo(200);
        assertThat(server.executions()).isEqualTo(3);
    }

    @Test
    void aKeyInTheBodyFollowsTheKeyRules() {
        library.config.put("idempotency.max-key-length", "8");
        Server server = library.server("stripe");

        List<Answer> answers = List.of(
                server.send(post("/hooks/stripe", "{\"id\":\"\"}"), receiver()),
                server.send(post("/hooks/stripe", "{\"id\":\"123456789\"}"), receiver()),
                server.send(post("/hooks/stripe", "{\"id\":\"caf\\u00e9\"}"), receiver()),
                server.send(post("/hooks/stripe", "{\"id\":1e999999999}"), receiver()));

        for (Answer answer : answers) {
            assertThat(answer.status).as(answer.toString()).isEqualTo(400);
            assertThat(answer.problemType()).isEqualTo("invalid-key");
            assertThat(answer.problem().getString("detail")).startsWith("The idempotency key at /id in the body");
        }
        assertThat(server.send(post("/hooks/stripe", "{\"id\":\"a b,c\"}"), receiver()).status)
                .as("spaces and commas are fine in JSON").isEqualTo(200);
        assertThat(server.executions()).isEqualTo(1);
    }

    @Test
    void whereAKeyInTheBodyIsOptionalABodyWithoutOneRunsUnclaimed() {
        Server server = library.server("bodyKeyIfAny");

        Answer keyless = server.send(post("/hooks/any", "{\"data\":{}}"), receiver());
        Answer notJson = server.send(post("/hooks/any", "ping"), receiver());
        Answer keyed = server.send(post("/hooks/any", "{\"data\":{\"id\":\"x-1\"}}"), receiver());
        Answer again = server.send(post("/hooks/any", "{\"data\":{\"id\":\"x-1\"}}"), receiver());

        assertThat(List.of(keyless.status, notJson.status, keyed.status)).containsOnly(200);
        assertThat(again.body).isEqualTo(keyed.body);
        assertThat(again.header(REPLAYED_HEADER)).isEqualTo("true");
        assertThat(server.executions()).isEqualTo(3);
        assertThat(library.outcomes()).containsExactly(CLAIMED, COMPLETED, REPLAYED);
    }

    @Test
    void whereAKeyInTheBodyIsOptionalABodyDeclaredJsonThatCannotBeReadIsRefusedNotRunUnclaimed() {
        // Nested deeper than the JSON-P parser goes (1,000 levels), the body was taken for no JSON,
        // so for a request without a key: every redelivery of the event ran again, unclaimed.
        Server server = library.server("bodyKeyIfAny");
        String deep = "{\"data\":{\"id\":\"x-2\"},\"trace\":" + "[".repeat(1_500) + "]".repeat(1_500) + "}";

        Answer first = server.send(post("/hooks/any", deep).header("Content-Type", "application/json"), receiver());
        Answer redelivered = server.send(post("/hooks/any", deep).header("Content-Type", "application/cloudevents+json"),
                receiver());
        Answer malformed = server.send(post("/hooks/any", "{\"data\":{\"id\":\"x-3\"}")
                .header("Content-Type", "application/json; charset=utf-8"), receiver());

        for (Answer answer : List.of(first, redelivered, malformed)) {
            assertThat(answer.status).as(answer.toString()).isEqualTo(400);
            assertThat(answer.problemType()).isEqualTo("unreadable-body");
        }
        assertThat(server.executions()).isZero();
        assertThat(server.send(post("/hooks/any", "ping").header("Content-Type", "text/plain"), receiver()).status)
                .as("a body declared as something else runs unclaimed, as before").isEqualTo(200);
        assertThat(server.send(post("/hooks/any", "{\"data\":").header("Content-Type", "text/json"), receiver()).status)
                .as("text/json is JSON too").isEqualTo(400);
    }

    @Test
    void whereAKeyInTheBodyIsOptionalAnEmptyBodyDeclaredJsonRunsUnclaimed() {
        // A ping without a body, sent with the client's usual Content-Type: it holds no key.
        Server server = library.server("bodyKeyIfAny");

        Answer ping = server.send(post("/hooks/any", "").header("Content-Type", "application/json"), receiver());

        assertThat(ping.status).as(ping.toString()).isEqualTo(200);
        assertThat(server.executions()).isEqualTo(1);
    }

    @Test
    void theMethodStillGetsTheWholeBodyItsKeyWasReadFrom() {
        Server server = library.server("stripe");

        Answer answer = server.send(post("/hooks/stripe", CHARGE_SUCCEEDED), body -> Response.ok(body).build());

        assertThat(answer.text()).isEqualTo(CHARGE_SUCCEEDED);
    }
}
