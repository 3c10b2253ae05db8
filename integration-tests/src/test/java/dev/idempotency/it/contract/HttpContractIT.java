package dev.idempotency.it.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.Http;

/** The HTTP contract on the JPA store, PostgreSQL; and the contract as the OpenAPI document tells it. */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class HttpContractIT extends HttpContractChecks {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return withContractResources(Deployments.sampleApp("contract", CONFIG));
    }

    @Test
    void everyIdempotentOperationIsDocumentedInTheOpenApiDocumentWithoutAnAnnotation() {
        JsonObject document = openApi();
        JsonObject paths = pathsWithinTheApplication(document);

        JsonObject create = paths.getJsonObject("/api/payments").getJsonObject("post");
        JsonObject key = keyParameter(create);
        assertThat(key).as("the Idempotency-Key header of POST /api/payments").isNotNull();
        assertThat(key.getBoolean("required")).isTrue();
        assertThat(key.getJsonObject("schema").getInt("maxLength")).isEqualTo(255);
        assertThat(key.getJsonObject("schema").getInt("minLength")).isEqualTo(1);
        assertThat(key.getString("description")).contains("PT24H");
        JsonObject responses = create.getJsonObject("responses");
        for (String status : new String[] {"400", "409", "410", "413", "422", "503"}) {
            assertThat(responses.getJsonObject(status)).as(status).isNotNull();
            assertThat(responses.getJsonObject(status).getJsonObject("content").getJsonObject("application/problem+json")
                    .getJsonObject("schema").getString("$ref")).as(status)
                    .isEqualTo("#/components/schemas/IdempotencyProblem");
        }
        assertThat(responses.getJsonObject("400").getString("description"))
                .contains("https://idempotency.dev/problems/missing-key", "https://idempotency.dev/problems/invalid-key");
        assertThat(responses.getJsonObject("409").getString("description"))
                .contains("https://idempotency.dev/problems/request-in-progress");
        assertThat(responses.getJsonObject("422").getString("description"))
                .contains("https://idempotency.dev/problems/key-reused");
        assertThat(responses.getJsonObject("503").getString("description"))
                .contains("https://idempotency.dev/problems/store-unavailable");
        assertThat(responses.getJsonObject("409").getJsonObject("headers").containsKey("Retry-After")).isTrue();
        assertThat(responses.getJsonObject("503").getJsonObject("headers").containsKey("Retry-After")).isTrue();
        JsonObject retention = create.getJsonObject("x-idempotency");
        assertThat(retention.getString("ttl")).isEqualTo("PT24H");
        assertThat(retention.getString("lease")).isEqualTo("PT1M");
        assertThat(retention.getBoolean("required")).isTrue();
        assertThat(document.getJsonObject("components").getJsonObject("schemas").getJsonObject("IdempotencyProblem")
                .getJsonObject("properties").keySet()).contains("type", "title", "status", "detail");

        // A member overridden in MicroProfile Config is documented as configured.
        JsonObject configured = paths.getJsonObject("/api/contract/configured").getJsonObject("post");
        assertThat(keyParameter(configured).getBoolean("required")).isFalse();
        assertThat(configured.getJsonObject("x-idempotency").getBoolean("required")).isFalse();
        assertThat(configured.getJsonObject("responses").containsKey("422")).isTrue();

        // Server-issued keys: the header says where keys come from, and 400 lists unknown-token.
        JsonObject tokenOnly = paths.getJsonObject("/api/contract/token-only").getJsonObject("post");
        assertThat(tokenOnly.getJsonObject("x-idempotency").getBoolean("serverIssuedKeys")).isTrue();
        assertThat(keyParameter(tokenOnly).getString("description")).contains("token");
        assertThat(tokenOnly.getJsonObject("responses").getJsonObject("400").getString("description"))
                .contains("https://idempotency.dev/problems/unknown-token");
        assertThat(create.getJsonObject("x-idempotency").getBoolean("serverIssuedKeys")).isFalse();

        // Duplicates in flight: the extension says so, and the key's description how long they wait.
        assertThat(create.getJsonObject("x-idempotency").getString("inProgress")).isEqualTo("CONFLICT");
        assertThat(create.getJsonObject("x-idempotency").containsKey("maxWait")).isFalse();
        JsonObject waiting = paths.getJsonObject("/api/contract/waiting").getJsonObject("post");
        assertThat(waiting.getJsonObject("x-idempotency").getString("inProgress")).isEqualTo("WAIT");
        assertThat(waiting.getJsonObject("x-idempotency").getString("maxWait")).isEqualTo("PT10S");
        assertThat(keyParameter(waiting).getString("description")).contains("waits up to PT10S");

        // Endpoints without @Idempotent are left as they are.
        JsonObject plain = paths.getJsonObject("/api/contract/plain").getJsonObject("post");
        assertThat(keyParameter(plain)).isNull();
        assertThat(plain.containsKey("x-idempotency")).isFalse();
        assertThat(plain.getJsonObject("responses").containsKey("422")).isFalse();
    }

    private JsonObject openApi() {
        HttpResponse<byte[]> answer = http.send(HttpRequest.newBuilder(http.base().resolve("/openapi"))
                .header("Accept", "application/json").GET().build());
        assertThat(answer.statusCode()).isEqualTo(200);
        return Json.createReader(new StringReader(Http.text(answer))).readObject();
    }

    /**
     * @return the document's operations by their path within the application: Payara puts the
     *     context root into the server URL, SmallRye OpenAPI (WildFly) into each path
     */
    private JsonObject pathsWithinTheApplication(JsonObject document) {
        String contextRoot = http.base().getPath().replaceAll("/$", "");
        JsonObjectBuilder paths = Json.createObjectBuilder();
        document.getJsonObject("paths").forEach((path, item) -> paths.add(
                path.startsWith(contextRoot + "/") ? path.substring(contextRoot.length()) : path, item));
        return paths.build();
    }

    private static JsonObject keyParameter(JsonObject operation) {
        if (!operation.containsKey("parameters")) {
            return null;
        }
        return operation.getJsonArray("parameters").stream()
                .map(JsonValue::asJsonObject)
                .filter(p -> "header".equals(p.getString("in")) && "Idempotency-Key".equals(p.getString("name")))
                .findFirst().orElse(null);
    }
}
