package dev.idempotency.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;

import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyFingerprint;
import dev.idempotency.Idempotent;
import dev.idempotency.exceptions.IdempotencyDefinitionException;

/**
 * The members of {@code @Idempotent} that only HTTP requests use ({@code keyHeader},
 * {@code keyFromBody}, {@code fingerprint}, {@code fingerprintMembers}), resolved at deployment:
 * their values in the policy, and every definition that fails the deployment, each with a message
 * naming the bean, the method, the key, the value and what is allowed.
 */
class PolicyResolverHttpMembersTest {

    @Path("hooks")
    static class Hooks {
        @POST
        @Idempotent(keyHeader = "X-GitHub-Delivery")
        public void github() {
        }

        @POST
        @Consumes(MediaType.APPLICATION_JSON)
        @Idempotent(keyFromBody = "/data/object/id")
        public void stripe() {
        }

        @POST
        @Consumes("application/cloudevents+json; charset=utf-8")
        @Idempotent(fingerprint = IdempotencyFingerprint.JSON, fingerprintMembers = {"/currency", "/amount", "/currency"})
        public void amounts() {
        }

        @POST
        @Consumes({MediaType.APPLICATION_JSON, MediaType.TEXT_PLAIN})
        @Idempotent
        public void plain() {
        }

        @GET
        @Idempotent
        public void lookup() {
        }

        @DELETE
        @Idempotent(fingerprint = IdempotencyFingerprint.NONE)
        public void remove() {
        }

        @POST
        @Consumes({MediaType.MULTIPART_FORM_DATA, MediaType.APPLICATION_FORM_URLENCODED})
        @Idempotent
        public void upload() {
        }

        /** Meant as "retries with another body replay", which fingerprint = NONE says on a resource method. */
        @POST
        @Idempotent(fingerprintArguments = false)
        public void redelivered(String body) {
        }
    }

    /** A message consumer: no HTTP request, its key from @IdempotencyKey. */
    @Idempotent(fingerprint = IdempotencyFingerprint.NONE)
    static class Consumer {
        @Idempotent(keyHeader = "X-Nope")
        public void onMessage(String id) {
        }

        public void onOther(String id) {
        }
    }

    private final Map<String, String> config = new HashMap<>();
    private final PolicyResolver resolver = new PolicyResolver(key -> Optional.ofNullable(config.get(key)));

    private IdempotencyPolicy resolve(Class<?> type, String method) throws NoSuchMethodException {
        for (java.lang.reflect.Method candidate : type.getMethods()) {
            if (candidate.getName().equals(method)) {
                return resolver.resolve(type, candidate);
            }
        }
        throw new NoSuchMethodException(method);
    }

    private AbstractThrowableAssert<?, ? extends Throwable> assertRefused(Class<?> type, String method) {
        return assertThatThrownBy(() -> resolve(type, method)).isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessageContaining("bean " + type.getName() + ", method " + method + ": ")
                .hasMessageContaining("allowed: ");
    }

    private static String key(Class<?> type, String method, String member) {
        return type.getName() + "/" + method + "/Idempotent/" + member;
    }

    @Test
    void theKeySourceAndTheFingerprintRuleAreResolvedIntoThePolicy() throws Exception {
        IdempotencyPolicy github = resolve(Hooks.class, "github");
        IdempotencyPolicy stripe = resolve(Hooks.class, "stripe");
        IdempotencyPolicy amounts = resolve(Hooks.class, "amounts");
        IdempotencyPolicy plain = resolve(Hooks.class, "plain");

        assertThat(github.keySource()).isEqualTo(new KeySource("X-GitHub-Delivery", null));
        assertThat(stripe.keySource().fromBody()).isTrue();
        assertThat(stripe.keySource().bodyPointer().tokens()).containsExactly("data", "object", "id");
        assertThat(stripe.fingerprint().jsonOnly()).as("@Consumes(application/json)").isTrue();
        assertThat(amounts.fingerprint().mode()).isEqualTo(IdempotencyFingerprint.JSON);
        assertThat(amounts.fingerprint().members()).as("sorted, without duplicates").extracting(BodyPointer::text)
                .containsExactly("/amount", "/currency");
        assertThat(amounts.fingerprint().jsonOnly()).as("a +json type with a parameter").isTrue();
        assertThat(plain.keySource()).isEqualTo(KeySource.DEFAULT);
        assertThat(plain.fingerprint().mode()).isEqualTo(IdempotencyFingerprint.BODY);
        assertThat(plain.fingerprint().jsonOnly()).as("text/plain too").isFalse();
        assertThat(resolve(Hooks.class, "remove").fingerprint().mode()).as("NONE reads no body: fine on DELETE")
                .isEqualTo(IdempotencyFingerprint.NONE);
    }

    @Test
    void everyHttpMemberCanBeConfiguredTheFaultToleranceWay() throws Exception {
        config.put(key(Hooks.class, "plain", "keyFromBody"), "/a~1b/~0c");
        config.put(Hooks.class.getName() + "/Idempotent/fingerprint", "json");
        config.put("Idempotent/fingerprintMembers", "/amount, /memo\\,2,,/amount");
        config.put(key(Hooks.class, "github", "keyHeader"), "ce-id");

        IdempotencyPolicy plain = resolve(Hooks.class, "plain");

        assertThat(plain.keySource().bodyPointer().tokens()).as("~1 is '/', ~0 is '~'").containsExactly("a/b", "~c");
        assertThat(plain.fingerprint().mode()).isEqualTo(IdempotencyFingerprint.JSON);
        assertThat(plain.fingerprint().members()).extracting(BodyPointer::text).containsExactly("/amount", "/memo,2");
        assertThat(resolve(Hooks.class, "github").keySource().header()).isEqualTo("ce-id");
    }

    @Test
    void aKeyHeaderThatIsNoHeaderNameFailsWithIdemp0122() {
        config.put(key(Hooks.class, "github", "keyHeader"), "X GitHub: Delivery");

        assertRefused(Hooks.class, "github").hasMessageStartingWith("IDEMP0140")
                .hasMessageContaining(key(Hooks.class, "github", "keyHeader") + "='X GitHub: Delivery'")
                .hasMessageContaining("RFC 9110 token");
    }

    @Test
    void aKeyFromBodyOrFingerprintMemberThatIsNoJsonPointerFailsWithIdemp0123() {
        for (String bad : List.of("id", "/a~2", "/a~")) {
            config.put(key(Hooks.class, "stripe", "keyFromBody"), bad);
            assertRefused(Hooks.class, "stripe").hasMessageStartingWith("IDEMP0141")
                    .hasMessageContaining(key(Hooks.class, "stripe", "keyFromBody") + "='" + bad + "'")
                    .hasMessageContaining("RFC 6901");
        }
        config.clear();
        config.put(key(Hooks.class, "amounts", "fingerprintMembers"), "/amount,currency");
        assertRefused(Hooks.class, "amounts").hasMessageStartingWith("IDEMP0141")
                .hasMessageContaining(key(Hooks.class, "amounts", "fingerprintMembers") + "='currency'");
    }

    @Test
    void aKeyHeaderAndAKeyFromBodyTogetherFailWithIdemp0124() {
        config.put(key(Hooks.class, "github", "keyFromBody"), "/id");

        assertRefused(Hooks.class, "github").hasMessageStartingWith("IDEMP0142")
                .hasMessageContaining("@Idempotent(keyHeader)='X-GitHub-Delivery'")
                .hasMessageContaining(key(Hooks.class, "github", "keyFromBody") + "='/id'");
    }

    @Test
    void anUnknownFingerprintModeFailsWithIdemp0125() {
        config.put("Idempotent/fingerprint", "CANONICAL");

        assertRefused(Hooks.class, "plain").hasMessageStartingWith("IDEMP0143")
                .hasMessageContaining("Idempotent/fingerprint='CANONICAL'")
                .hasMessageContaining("[BODY, JSON, MULTIPART, NONE]");
    }

    @Test
    void fingerprintMembersWithoutTheJsonModeFailWithIdemp0126() {
        config.put(key(Hooks.class, "plain", "fingerprintMembers"), "/amount");

        assertRefused(Hooks.class, "plain").hasMessageStartingWith("IDEMP0144")
                .hasMessageContaining(key(Hooks.class, "plain", "fingerprintMembers") + "='/amount'")
                .hasMessageContaining("@Idempotent(fingerprint)='BODY'");
    }

    @Test
    void readingTheBodyOfAMethodWithoutOneFailsWithIdemp0127() {
        config.put(key(Hooks.class, "lookup", "keyFromBody"), "/id");
        assertRefused(Hooks.class, "lookup").hasMessageStartingWith("IDEMP0145")
                .hasMessageContaining(key(Hooks.class, "lookup", "keyFromBody") + "='/id'").hasMessageContaining("GET");

        config.clear();
        config.put(key(Hooks.class, "remove", "fingerprint"), "MULTIPART");
        assertRefused(Hooks.class, "remove").hasMessageStartingWith("IDEMP0145")
                .hasMessageContaining(key(Hooks.class, "remove", "fingerprint") + "='MULTIPART'")
                .hasMessageContaining("DELETE");
    }

    /**
     * A key read from the body as JSON where the body is never JSON (a form, a multipart upload)
     * deployed, and every request was then refused {@code 400 missing-key}; with
     * {@code required=false} every one ran unprotected.
     */
    @Test
    void aKeyFromABodyThatIsNeverJsonFailsTheDeployment() {
        config.put(key(Hooks.class, "upload", "keyFromBody"), "/id");
        assertRefused(Hooks.class, "upload").hasMessageStartingWith("IDEMP0157")
                .hasMessageContaining(key(Hooks.class, "upload", "keyFromBody") + "='/id'")
                .hasMessageContaining("multipart/form-data");

        config.clear();
        config.put(key(Hooks.class, "stripe", "fingerprint"), "MULTIPART");
        assertRefused(Hooks.class, "stripe").hasMessageStartingWith("IDEMP0157")
                .hasMessageContaining("@Idempotent(keyFromBody)='/data/object/id'")
                .hasMessageContaining(key(Hooks.class, "stripe", "fingerprint") + "='MULTIPART'");
    }

    @Test
    void anHttpMemberOnAMethodWithoutAnHttpRequestFailsWithIdemp0128() {
        assertRefused(Consumer.class, "onMessage").hasMessageStartingWith("IDEMP0146")
                .hasMessageContaining("@Idempotent(keyHeader)='X-Nope'").hasMessageContaining("@IdempotencyKey");

        config.put(key(Consumer.class, "onOther", "fingerprintMembers"), "/amount");
        config.put(key(Consumer.class, "onOther", "fingerprint"), "JSON");
        assertRefused(Consumer.class, "onOther").hasMessageStartingWith("IDEMP0146")
                .hasMessageContaining(key(Consumer.class, "onOther", "fingerprint") + "='JSON'");
    }

    @Test
    void fingerprintArgumentsOnAResourceMethodFailsWithIdemp0153() {
        // It applies to methods without an HTTP request: on a resource method it did nothing, and
        // a retry with another body got 422 where the definition meant it to replay.
        assertRefused(Hooks.class, "redelivered").hasMessageStartingWith("IDEMP0153")
                .hasMessageContaining("@Idempotent(fingerprintArguments)='false'")
                .hasMessageContaining("fingerprint=NONE");

        config.put(key(Hooks.class, "plain", "fingerprintArguments"), "false");
        assertRefused(Hooks.class, "plain").hasMessageStartingWith("IDEMP0153")
                .hasMessageContaining(key(Hooks.class, "plain", "fingerprintArguments") + "='false'");
    }

    @Test
    void anHttpMemberOnTheClassOrTheApplicationIsLeftToTheResourceMethods() throws Exception {
        config.put("Idempotent/keyHeader", "X-Request-Id");

        IdempotencyPolicy onOther = resolve(Consumer.class, "onOther");

        assertThat(onOther.keySource()).as("the class says NONE, the config a header: not for this method")
                .isEqualTo(KeySource.DEFAULT);
        assertThat(onOther.fingerprint()).isEqualTo(FingerprintRule.DEFAULT);
        assertThat(resolve(Hooks.class, "plain").keySource().header()).isEqualTo("X-Request-Id");
    }
}
