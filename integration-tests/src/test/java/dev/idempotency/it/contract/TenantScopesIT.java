package dev.idempotency.it.contract;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.Http.text;
import static dev.idempotency.it.support.Problems.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.resources.Counters;
import dev.idempotency.it.resources.TenantResource;
import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.OnSampleApp;

/**
 * Who shares a key space, over real HTTP on Payara Micro: two tenants sending the same key as
 * users of the same name run separately, a request without its tenant is refused, bad credentials
 * are never anonymous, and an endpoint that refuses anonymous callers runs nothing for them.
 * Executions are counted by the app.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class TenantScopesIT extends OnSampleApp {

    private static final String ORDERS = "api/tenants/orders";
    private static final String MEMBERS_ONLY = "api/tenants/members-only";
    private static final String TENANT = "X-Tenant-Id";
    private static final String CHALLENGE = "Basic realm=\"payments\"";

    /** The tenant from a header; the library's own 401s challenge as the sample's mechanism does. */
    static final String CONFIG = String.join("\n",
            "idempotency.tenant.source=HEADER",
            "idempotency.tenant.header=" + TENANT,
            "idempotency.authentication-challenge=" + CHALLENGE);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleApp("tenants", CONFIG).addClasses(TenantResource.class, Counters.class);
    }

    private long count(String name) {
        return http.count("api/tenants/count/" + name);
    }

    /**
     * @param tenant the {@code X-Tenant-Id}, or {@code null} for none
     * @param user a demo user and its password ({@code alice:alice}), or {@code null} for anonymous
     */
    private HttpResponse<byte[]> post(String path, String key, String tenant, String user) {
        HttpRequest.Builder request = http.request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"book\"}"));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        if (tenant != null) {
            request.header(TENANT, tenant);
        }
        if (user != null) {
            request.header("Authorization", "Basic "
                    + Base64.getEncoder().encodeToString(user.getBytes(StandardCharsets.UTF_8)));
        }
        return http.send(request.build());
    }

    @Test
    void twoTenantsSendingTheSameKeyAsUsersOfTheSameNameRunSeparately() {
        String key = newKey();
        long before = count("orders");

        HttpResponse<byte[]> acme = post(ORDERS, key, "acme", "alice:alice");
        HttpResponse<byte[]> globex = post(ORDERS, key, "globex", "alice:alice");
        HttpResponse<byte[]> acmeRetry = post(ORDERS, key, "acme", "alice:alice");
        HttpResponse<byte[]> bobOfAcme = post(ORDERS, key, "acme", "bob:bob");

        assertThat(acme.statusCode()).as(text(acme)).isEqualTo(200);
        assertThat(text(acme)).contains("\"tenant\":\"acme\"", "\"caller\":\"alice\"");
        assertThat(globex.statusCode()).isEqualTo(200);
        assertThat(text(globex)).as("globex's alice ran her own order").contains("\"tenant\":\"globex\"");
        assertThat(globex.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(acmeRetry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(acmeRetry.body()).as("acme's answer, byte for byte").isEqualTo(acme.body());
        assertThat(text(bobOfAcme)).as("TENANT_PRINCIPAL: another user of acme").contains("\"caller\":\"bob\"");
        assertThat(count("orders") - before).isEqualTo(3);
        assertThat(count("orders-acme")).isPositive();
        assertThat(count("orders-globex")).isPositive();
    }

    @Test
    void aRequestWithoutItsTenantGets400AndNothingRuns() {
        long before = count("orders");

        assertProblem(post(ORDERS, newKey(), null, "alice:alice"), 400, "missing-tenant");
        assertProblem(post(ORDERS, newKey(), null, null), 400, "missing-tenant");
        HttpResponse<byte[]> missing = post(ORDERS, newKey(), null, "alice:alice");
        assertThat(text(missing)).as("the detail tells which header").contains(TENANT);

        assertThat(count("orders")).isEqualTo(before);
    }

    @Test
    void aWrongPasswordGets401AndNothingRunsNotAnAnonymousPayment() {
        long before = executions();
        String key = newKey();

        HttpResponse<byte[]> wrong = post(PAYMENTS, key, null, "alice:wrong");
        HttpResponse<byte[]> unknown = post(PAYMENTS, key, null, "mallory:mallory");

        for (HttpResponse<byte[]> refused : java.util.List.of(wrong, unknown)) {
            assertThat(refused.statusCode()).as(text(refused)).isEqualTo(401);
            assertThat(refused.headers().firstValue("WWW-Authenticate")).hasValue(CHALLENGE);
        }
        assertThat(executions()).as("the payment never ran, as anyone").isEqualTo(before);

        HttpResponse<byte[]> anonymous = http.postJson(PAYMENTS, key, HttpContractChecks.ORDER);
        assertThat(anonymous.statusCode()).as("the key was not used: an anonymous call with it runs once").isEqualTo(201);
        assertThat(anonymous.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(executions()).isEqualTo(before + 1);
    }

    @Test
    void anAnonymousCallerOfAnEndpointThatRejectsThemGets401AndNothingRuns() {
        long before = count("members-only");

        HttpResponse<byte[]> anonymous = post(MEMBERS_ONLY, newKey(), null, null);
        HttpResponse<byte[]> withoutKey = post(MEMBERS_ONLY, null, null, null);

        assertProblem(anonymous, 401, "authentication-required");
        assertProblem(withoutKey, 401, "authentication-required");
        assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValue(CHALLENGE);
        assertThat(count("members-only")).isEqualTo(before);

        String key = newKey();
        HttpResponse<byte[]> alice = post(MEMBERS_ONLY, key, null, "alice:alice");
        HttpResponse<byte[]> retry = post(MEMBERS_ONLY, key, null, "alice:alice");
        assertThat(alice.statusCode()).as(text(alice)).isEqualTo(200);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(count("members-only")).isEqualTo(before + 1);
    }
}
