package dev.idempotency.it.contract;

import static dev.idempotency.it.support.Http.text;
import static dev.idempotency.it.support.Problems.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.UUID;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.OnSampleApp;

/**
 * The sample's webhook receivers over real HTTP on the JPA store, PostgreSQL: the key taken from
 * the sender's own header ({@code X-GitHub-Delivery}, CloudEvents' {@code ce-id}) or from the JSON
 * body (a Stripe event's {@code /id}). A redelivery runs nothing and gets the first answer's bytes;
 * a delivery without the key gets {@code 400 missing-key}; the OpenAPI document says where the key
 * comes from.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class WebhookReceiversIT extends OnSampleApp {

    private static final String PUSH = "{\"ref\":\"refs/heads/main\",\"after\":\"9f2c1e\",\"repository\":{\"id\":1296269}}";

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleApp("webhooks", "");
    }

    private long executions(String receiver) {
        return http.count("api/webhooks/" + receiver + "/executions");
    }

    private HttpResponse<byte[]> deliver(String receiver, String body, String... headers) {
        HttpRequest.Builder request = http.request("api/webhooks/" + receiver)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return http.send(request.build());
    }

    private static void assertRedeliveryReplays(HttpResponse<byte[]> first, HttpResponse<byte[]> redelivery) {
        assertThat(first.statusCode()).as(text(first)).isEqualTo(200);
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(redelivery.statusCode()).isEqualTo(200);
        assertThat(redelivery.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(redelivery.body()).as("the first answer's bytes").isEqualTo(first.body());
        assertThat(redelivery.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
    }

    @Test
    void aGitHubRedeliveryWithTheSameDeliveryIdRunsNothingAndGetsTheFirstAnswer() {
        long before = executions("github");
        String delivery = UUID.randomUUID().toString();

        HttpResponse<byte[]> first = deliver("github", PUSH, "X-GitHub-Delivery", delivery, "X-GitHub-Event", "push");
        HttpResponse<byte[]> redelivery = deliver("github", PUSH, "X-GitHub-Delivery", delivery,
                "X-GitHub-Event", "push", "X-Hub-Signature-256", "sha256=another-signature-header-not-fingerprinted");

        assertRedeliveryReplays(first, redelivery);
        assertThat(executions("github") - before).isEqualTo(1);
        assertProblem(deliver("github", PUSH.replace("9f2c1e", "000000"), "X-GitHub-Delivery", delivery), 422,
                "key-reused");
        assertThat(deliver("github", PUSH, "X-GitHub-Delivery", UUID.randomUUID().toString()).statusCode())
                .as("another delivery runs").isEqualTo(200);
        assertThat(executions("github") - before).isEqualTo(2);
    }

    @Test
    void aCloudEventRedeliveredWithTheSameCeIdReplaysEvenWithItsDataReEncoded() {
        long before = executions("cloudevents");
        String id = UUID.randomUUID().toString();

        HttpResponse<byte[]> first = deliver("cloudevents", "{\"orderId\":\"o-1\", \"amount\":1250}",
                "ce-id", id, "ce-source", "/orders", "ce-type", "com.acme.order.placed", "ce-specversion", "1.0");
        HttpResponse<byte[]> redelivery = deliver("cloudevents", "{\"amount\":1250,\"orderId\":\"o-1\"}",
                "ce-id", id, "ce-source", "/orders", "ce-type", "com.acme.order.placed", "ce-specversion", "1.0");

        assertRedeliveryReplays(first, redelivery);
        assertThat(executions("cloudevents") - before).isEqualTo(1);
    }

    @Test
    void aStripeEventRedeliveredWithTheSameIdInItsBodyRunsNothingAndGetsTheFirstAnswer() {
        long before = executions("stripe");
        String id = "evt_" + UUID.randomUUID().toString().replace("-", "");
        String event = "{\"id\":\"" + id + "\",\"object\":\"event\",\"type\":\"charge.succeeded\","
                + "\"data\":{\"object\":{\"id\":\"ch_1\",\"amount\":1250,\"currency\":\"eur\"}}}";
        String reSerialised = "{\n  \"type\": \"charge.succeeded\",\n  \"object\": \"event\",\n  \"id\": \"" + id + "\",\n"
                + "  \"data\": {\"object\": {\"currency\": \"eur\", \"amount\": 1250, \"id\": \"ch_1\"}}\n}";

        HttpResponse<byte[]> first = deliver("stripe", event, "Stripe-Signature", "t=1,v1=first");
        HttpResponse<byte[]> redelivery = deliver("stripe", reSerialised, "Stripe-Signature", "t=2,v1=second");

        assertRedeliveryReplays(first, redelivery);
        assertThat(executions("stripe") - before).isEqualTo(1);
        assertProblem(deliver("stripe", event.replace("1250", "1300")), 422, "key-reused");
        assertThat(executions("stripe") - before).isEqualTo(1);
    }

    @Test
    void aDeliveryWithoutItsKeyGets400MissingKeyNamingWhereTheKeyWasLookedFor() {
        long github = executions("github");
        long cloudEvents = executions("cloudevents");
        long stripe = executions("stripe");

        HttpResponse<byte[]> noDelivery = deliver("github", PUSH, "Idempotency-Key", UUID.randomUUID().toString());
        HttpResponse<byte[]> noCeId = deliver("cloudevents", "{}", "ce-source", "/orders");
        HttpResponse<byte[]> noId = deliver("stripe", "{\"object\":\"event\"}");
        HttpResponse<byte[]> notJson = deliver("stripe", "id=evt_1");

        for (HttpResponse<byte[]> answer : List.of(noDelivery, noCeId, noId, notJson)) {
            assertProblem(answer, 400, "missing-key");
        }
        assertThat(text(noDelivery)).contains("X-GitHub-Delivery");
        assertThat(text(noCeId)).contains("ce-id");
        assertThat(text(noId)).contains("/id");
        assertThat(text(notJson)).contains("/id").contains("not JSON");
        assertThat(executions("github")).isEqualTo(github);
        assertThat(executions("cloudevents")).isEqualTo(cloudEvents);
        assertThat(executions("stripe")).isEqualTo(stripe);
    }

    @Test
    void theOpenApiDocumentSaysWhereEachReceiversKeyComesFrom() {
        HttpResponse<byte[]> answer = http.send(HttpRequest.newBuilder(http.base().resolve("/openapi"))
                .header("Accept", "application/json").GET().build());
        assertThat(answer.statusCode()).isEqualTo(200);
        JsonObject paths = Json.createReader(new StringReader(text(answer))).readObject().getJsonObject("paths");

        JsonObject github = operation(paths, "/api/webhooks/github");
        assertThat(headerParameters(github)).as("the sender's header, not Idempotency-Key")
                .contains("X-GitHub-Delivery").doesNotContain("Idempotency-Key");
        assertThat(github.getJsonObject("x-idempotency").getString("header")).isEqualTo("X-GitHub-Delivery");

        JsonObject cloudEvents = operation(paths, "/api/webhooks/cloudevents");
        assertThat(headerParameters(cloudEvents)).contains("ce-id");
        assertThat(cloudEvents.getJsonObject("x-idempotency").getString("fingerprint")).isEqualTo("NONE");

        JsonObject stripe = operation(paths, "/api/webhooks/stripe");
        assertThat(headerParameters(stripe)).as("the key is in the body").doesNotContain("Idempotency-Key");
        assertThat(stripe.getJsonObject("x-idempotency").getString("keyFromBody")).isEqualTo("/id");
        assertThat(stripe.getJsonObject("x-idempotency").getString("fingerprint")).isEqualTo("JSON");
        assertThat(stripe.getJsonObject("requestBody").getString("description")).contains("`/id`");
    }

    /** The POST operation of a path, wherever the server put the context root (server URL or path). */
    private JsonObject operation(JsonObject paths, String path) {
        String contextRoot = http.base().getPath().replaceAll("/$", "");
        JsonObject item = paths.containsKey(path) ? paths.getJsonObject(path) : paths.getJsonObject(contextRoot + path);
        assertThat(item).as(path + " in " + paths.keySet()).isNotNull();
        return item.getJsonObject("post");
    }

    private static List<String> headerParameters(JsonObject operation) {
        if (!operation.containsKey("parameters")) {
            return List.of();
        }
        return operation.getJsonArray("parameters").stream().map(JsonValue::asJsonObject)
                .filter(p -> "header".equals(p.getString("in"))).map(p -> p.getString("name")).toList();
    }
}
