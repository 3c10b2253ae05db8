package dev.idempotency.jaxrs.internal;

import static dev.idempotency.jaxrs.internal.FakeRequests.REPLAYED_HEADER;
import static dev.idempotency.jaxrs.internal.FakeRequests.post;
import static dev.idempotency.jaxrs.internal.FakeRequests.postTo;
import static dev.idempotency.testing.Jwts.jwt;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import jakarta.json.Json;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;

import org.junit.jupiter.api.Test;

import dev.idempotency.cdi.JwtTenantClaim;
import dev.idempotency.claim.TenantLookup;
import dev.idempotency.jaxrs.internal.FakeRequests.Answer;
import dev.idempotency.jaxrs.internal.FakeRequests.Library;
import dev.idempotency.jaxrs.internal.FakeRequests.Server;
import dev.idempotency.spi.ScopeRequest;

/**
 * Who shares a key space over HTTP, in this JVM: tenants from a header, the host, a resolver or a
 * JWT claim; a request without a tenant never runs in a shared space; anonymous callers refused
 * where the endpoint says so. Executions are counted by the fake container, answers by their bytes.
 */
class KeySpacesFilterTest {

    private final Library library = new Library();

    /** Answers with the tenant it saw and a sequence number, so that a replay can be told from a run. */
    private static Function<String, Response> receipt(String tenant) {
        int[] sequence = {0};
        return body -> Response.status(201).type("text/plain").entity("receipt of " + tenant + " #" + ++sequence[0])
                .build();
    }

    private void tenantsFromTheHeader() {
        library.config.put("idempotency.tenant.source", "HEADER");
        library.config.put("idempotency.tenant.header", "X-Tenant-Id");
    }

    @Test
    void twoTenantsSendingTheSameKeyAsTheSameUserRunTwiceAndEachGetsItsOwnReplay() {
        tenantsFromTheHeader();
        Server server = library.server("createForTenant");

        Answer acme = server.send(post("/payments", "{}").key("k-1").as("alice").header("X-Tenant-Id", "acme"),
                receipt("acme"));
        Answer globex = server.send(post("/payments", "{}").key("k-1").as("alice").header("X-Tenant-Id", "globex"),
                receipt("globex"));
        Answer acmeAgain = server.send(post("/payments", "{}").key("k-1").as("alice").header("x-tenant-id", "acme"),
                receipt("nobody"));

        assertThat(acme.status).isEqualTo(201);
        assertThat(globex.status).isEqualTo(201);
        assertThat(globex.text()).as("globex's own run, not acme's replay").isEqualTo("receipt of globex #1");
        assertThat(globex.header(REPLAYED_HEADER)).isNull();
        assertThat(acmeAgain.text()).isEqualTo("receipt of acme #1");
        assertThat(acmeAgain.header(REPLAYED_HEADER)).isEqualTo("true");
        assertThat(server.executions()).isEqualTo(2);
        assertThat(library.memory.size()).isEqualTo(2);
    }

    @Test
    void inTheTenantScopeTheCallersOfOneTenantShareKeysAndInTenantPrincipalTheyDoNot() {
        tenantsFromTheHeader();
        Server shared = library.server("createForTenant");
        Server perUser = library.server("createForTenantUser");

        shared.send(post("/payments", "{}").key("k-1").as("alice").header("X-Tenant-Id", "acme"), receipt("alice"));
        Answer bobShared = shared.send(post("/payments", "{}").key("k-1").as("bob").header("X-Tenant-Id", "acme"),
                receipt("bob"));
        perUser.send(post("/payments", "{}").key("k-1").as("alice").header("X-Tenant-Id", "acme"), receipt("alice"));
        Answer bobOwn = perUser.send(post("/payments", "{}").key("k-1").as("bob").header("X-Tenant-Id", "acme"),
                receipt("bob"));
        Answer aliceOfGlobex = perUser.send(post("/payments", "{}").key("k-1").as("alice")
                .header("X-Tenant-Id", "globex"), receipt("globex's alice"));

        assertThat(bobShared.header(REPLAYED_HEADER)).as("TENANT: one space per tenant").isEqualTo("true");
        assertThat(bobShared.text()).isEqualTo("receipt of alice #1");
        assertThat(bobOwn.text()).as("TENANT_PRINCIPAL: bob's own").isEqualTo("receipt of bob #1");
        assertThat(aliceOfGlobex.text()).as("another tenant's alice is another user")
                .isEqualTo("receipt of globex's alice #1");
        assertThat(shared.executions()).isEqualTo(1);
        assertThat(perUser.executions()).isEqualTo(3);
    }

    @Test
    void aRequestWithoutItsTenantOrWithTwoGets400MissingTenantAndNothingIsClaimed() {
        tenantsFromTheHeader();
        Server server = library.server("createForTenant");

        List<Answer> refused = List.of(
                server.send(post("/payments", "{}").key("k-1").as("alice"), receipt("none")),
                server.send(post("/payments", "{}").key("k-1").as("alice").header("X-Tenant-Id", ""), receipt("empty")),
                server.send(post("/payments", "{}").key("k-1").as("alice").header("X-Tenant-Id", "acme")
                        .header("X-Tenant-Id", "globex"), receipt("two")),
                server.send(post("/payments", "{}").key("k-1").header("X-Other", "acme"), receipt("anonymous")));

        for (Answer answer : refused) {
            assertThat(answer.status).as(answer.toString()).isEqualTo(400);
            assertThat(answer.problemType()).isEqualTo("missing-tenant");
            assertThat(answer.problem().getString("title")).isEqualTo("Tenant required");
            assertThat(answer.problem().getString("detail")).contains("X-Tenant-Id").doesNotContain("IDEMP");
        }
        assertThat(server.executions()).isZero();
        assertThat(library.store.calls()).as("never a shared space instead").isEmpty();
    }

    @Test
    void aMissingKeyIsReportedBeforeAMissingTenant() {
        tenantsFromTheHeader();
        Server server = library.server("createForTenant");

        Answer noKey = server.send(post("/payments", "{}").as("alice"), receipt("none"));

        assertThat(noKey.status).isEqualTo(400);
        assertThat(noKey.problemType()).isEqualTo("missing-key");
    }

    @Test
    void theHostIsTheTenantWhateverItsCaseAndPort() {
        library.config.put("idempotency.tenant.source", "HOST");
        Server server = library.server("createForTenant");

        Answer acme = server.send(postTo("https://acme.example.com", "/payments", "{}").key("k-1"), receipt("acme"));
        Answer acmeAgain = server.send(postTo("https://ACME.Example.com:8443", "/payments", "{}").key("k-1"),
                receipt("acme again"));
        Answer globex = server.send(postTo("https://globex.example.com", "/payments", "{}").key("k-1"),
                receipt("globex"));

        assertThat(acme.status).isEqualTo(201);
        assertThat(acmeAgain.header(REPLAYED_HEADER)).isEqualTo("true");
        assertThat(acmeAgain.text()).isEqualTo("receipt of acme #1");
        assertThat(globex.text()).isEqualTo("receipt of globex #1");
        assertThat(server.executions()).isEqualTo(2);
    }

    @Test
    void aResolverBeanNamesTheTenantFromTheNeutralRequestAndNoAnswerIsRefused() {
        library.config.put("idempotency.tenant.source", "RESOLVER");
        List<ScopeRequest> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        library.tenants = TenantLookup.resolver(request -> {
            seen.add(request);
            String org = request.header("X-Org");
            return org == null ? null : org + "/" + request.host();
        });
        Server server = library.server("createForTenant");

        Answer first = server.send(post("/payments", "{}").key("k-1").as("alice").header("X-Org", "acme"),
                receipt("acme"));
        Answer other = server.send(post("/payments", "{}").key("k-1").as("alice").header("X-Org", "globex"),
                receipt("globex"));
        Answer none = server.send(post("/payments", "{}").key("k-1").as("alice"), receipt("none"));
        Answer anonymous = server.send(post("/payments", "{}").key("k-1"), receipt("anonymous"));

        assertThat(first.status).isEqualTo(201);
        assertThat(other.text()).isEqualTo("receipt of globex #1");
        assertThat(none.status).as("an authenticated caller without a tenant").isEqualTo(400);
        assertThat(none.problemType()).isEqualTo("missing-tenant");
        assertThat(anonymous.status).as("a resolver may take the tenant from the credentials").isEqualTo(401);
        assertThat(anonymous.problemType()).isEqualTo("authentication-required");
        assertThat(server.executions()).isEqualTo(2);
        ScopeRequest request = seen.get(0);
        assertThat(request.http()).isTrue();
        assertThat(request.endpoint()).isEqualTo(FakeRequests.endpoint("createForTenant", false, true).policy().endpoint());
        assertThat(request.principal().getName()).isEqualTo("alice");
        assertThat(request.host()).isEqualTo("localhost");
    }

    @Test
    void aJwtClaimNamesTheTenantAndATokenWithoutItOrNoTokenIsRefused() {
        library.config.put("idempotency.tenant.source", "JWT_CLAIM");
        library.config.put("idempotency.tenant.jwt-claim", "tid");
        library.tenants = JwtTenantClaim.ofPrincipal("tid");
        Server server = library.server("createForTenantUser");

        Answer acme = server.send(post("/payments", "{}").key("k-1").as(jwt("alice", Map.of("tid", "acme"))),
                receipt("acme"));
        Answer numbered = server.send(post("/payments", "{}").key("k-1")
                .as(jwt("alice", Map.of("tid", Json.createValue(42)))), receipt("tenant 42"));
        Answer acmeAgain = server.send(post("/payments", "{}").key("k-1")
                .as(jwt("alice", Map.of("tid", Json.createValue("acme")))), receipt("again"));
        Answer withoutClaim = server.send(post("/payments", "{}").key("k-1").as(jwt("alice", Map.of())), receipt("none"));
        Answer listClaim = server.send(post("/payments", "{}").key("k-1")
                .as(jwt("alice", Map.of("tid", Set.of("acme", "globex")))), receipt("list"));
        Answer anonymous = server.send(post("/payments", "{}").key("k-1"), receipt("anonymous"));

        assertThat(acme.status).isEqualTo(201);
        assertThat(numbered.text()).isEqualTo("receipt of tenant 42 #1");
        assertThat(acmeAgain.header(REPLAYED_HEADER)).as("a JSON string claim is the same tenant").isEqualTo("true");
        for (Answer refused : List.of(withoutClaim, listClaim)) {
            assertThat(refused.status).isEqualTo(400);
            assertThat(refused.problemType()).isEqualTo("missing-tenant");
        }
        assertThat(anonymous.status).isEqualTo(401);
        assertThat(anonymous.problemType()).isEqualTo("authentication-required");
        assertThat(server.executions()).isEqualTo(2);
    }

    @Test
    void anAnonymousCallerOfAnEndpointThatRejectsThemGets401WithTheChallengeAndNothingRuns() {
        library.config.put("idempotency.authentication-challenge", "Basic realm=\"payments\"");
        Server server = library.server("createForMembers");

        Answer withKey = server.send(post("/payments", "{}").key("k-1"), receipt("anonymous"));
        Answer withoutKey = server.send(post("/payments", "{}"), receipt("anonymous"));
        Answer alice = server.send(post("/payments", "{}").key("k-1").as("alice"), receipt("alice"));

        for (Answer refused : List.of(withKey, withoutKey)) {
            assertThat(refused.status).isEqualTo(401);
            assertThat(refused.problemType()).isEqualTo("authentication-required");
            assertThat(refused.problem().getString("title")).isEqualTo("Authentication required");
            assertThat(refused.header(HttpHeaders.WWW_AUTHENTICATE)).isEqualTo("Basic realm=\"payments\"");
            assertThat(refused.text()).doesNotContain("IDEMP");
        }
        assertThat(alice.status).isEqualTo(201);
        assertThat(server.executions()).isEqualTo(1);
        assertThat(library.store.calls("claim")).as("only alice's request was claimed").isEqualTo(1);
    }

    @Test
    void withoutAConfiguredChallengeThe401CarriesNone() {
        Server server = library.server("createForMembers");

        Answer refused = server.send(post("/payments", "{}").key("k-1"), receipt("anonymous"));

        assertThat(refused.status).isEqualTo(401);
        assertThat(refused.header(HttpHeaders.WWW_AUTHENTICATE)).isNull();
    }

    @Test
    void anEndpointThatAllowsAnonymousCallersStillPutsThemAllInOneSpaceOfTheirOwn() {
        Server server = library.server("create");

        server.send(post("/payments", "{}").key("k-1"), receipt("first anonymous"));
        Answer second = server.send(post("/payments", "{}").key("k-1"), receipt("second anonymous"));
        Answer alice = server.send(post("/payments", "{}").key("k-1").as("alice"), receipt("alice"));

        assertThat(second.header(REPLAYED_HEADER)).isEqualTo("true");
        assertThat(alice.text()).isEqualTo("receipt of alice #1");
    }
}
