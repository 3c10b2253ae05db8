package dev.idempotency.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyScope;
import dev.idempotency.Idempotent;
import dev.idempotency.exceptions.IdempotencyDefinitionException;

/** A tenant scope fails the deployment unless a tenant source is configured that the method can have. */
class ScopeChecksTest {

    static class Orders {
        @Idempotent(scope = IdempotencyScope.TENANT)
        public void place() {
        }

        @Idempotent(scope = IdempotencyScope.TENANT_PRINCIPAL)
        public void cancel() {
        }

        @Idempotent
        public void note() {
        }

        @Idempotent(scope = IdempotencyScope.TENANT_PRINCIPAL, serverIssuedKeys = true)
        public void pay() {
        }

        @jakarta.ws.rs.POST
        @Idempotent(scope = IdempotencyScope.TENANT, keyHeader = "x-tenant-id")
        public void refund() {
        }
    }

    private static final String WHERE = "bean " + Orders.class.getName() + ", method ";
    private final Map<String, String> config = new HashMap<>();

    private IdempotencyPolicy policy(String method) throws NoSuchMethodException {
        return new PolicyResolver(key -> Optional.ofNullable(config.get(key)))
                .resolve(Orders.class, Orders.class.getMethod(method));
    }

    private void check(String method, boolean http, boolean jwtApi) throws NoSuchMethodException {
        ScopeChecks.check(WHERE + method, policy(method), LibrarySettings.load(key -> Optional.ofNullable(config.get(key))),
                http, jwtApi);
    }

    @Test
    void aTenantScopeWithoutASourceNamesTheMethodAndTheKeyToSet() {
        assertThatThrownBy(() -> check("place", true, true))
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessage("IDEMP0125: " + WHERE + "place: scope=TENANT needs the tenant of each request, but"
                        + " idempotency.tenant.source is not set; allowed: set idempotency.tenant.source to HEADER,"
                        + " JWT_CLAIM, HOST or RESOLVER, or choose scope PRINCIPAL or ENDPOINT");
        assertThatThrownBy(() -> check("cancel", false, true)).hasMessageStartingWith("IDEMP0125: " + WHERE + "cancel")
                .hasMessageContaining("scope=TENANT_PRINCIPAL");
        config.put("idempotency.tenant.source", "none");
        assertThatThrownBy(() -> check("place", true, true)).hasMessageStartingWith("IDEMP0125");
    }

    @Test
    void aNonHttpMethodCannotTakeItsTenantFromAHeaderOrTheHost() throws Exception {
        for (String source : new String[] {"HEADER", "HOST"}) {
            config.put("idempotency.tenant.source", source);
            assertThatThrownBy(() -> check("place", false, true))
                    .isInstanceOf(IdempotencyDefinitionException.class)
                    .hasMessage("IDEMP0126: " + WHERE + "place: scope=TENANT on a method with @IdempotencyKey"
                            + " parameters, but idempotency.tenant.source=" + source + " takes the tenant from the HTTP"
                            + " request, which such a call does not have; allowed: idempotency.tenant.source=JWT_CLAIM"
                            + " or RESOLVER, or scope PRINCIPAL or ENDPOINT on this method");
            check("place", true, true);
        }
        for (String source : new String[] {"JWT_CLAIM", "RESOLVER"}) {
            config.put("idempotency.tenant.source", source);
            assertThatCode(() -> check("place", false, true)).as(source).doesNotThrowAnyException();
        }
    }

    @Test
    void aJwtClaimNeedsTheMicroProfileJwtApi() throws Exception {
        config.put("idempotency.tenant.source", "JWT_CLAIM");

        assertThatThrownBy(() -> check("cancel", true, false))
                .hasMessage("IDEMP0128: " + WHERE + "cancel: scope=TENANT_PRINCIPAL with idempotency.tenant.source=JWT_CLAIM,"
                        + " but the application does not see the MicroProfile JWT API"
                        + " (org.eclipse.microprofile.jwt.JsonWebToken); allowed: a server with MicroProfile JWT, or"
                        + " another tenant source (HEADER, HOST, RESOLVER)");
        assertThat(ScopeChecks.jwtApiPresent()).as("on this test's class path").isTrue();
    }

    /**
     * A server-issued token's use is its principal's whatever the scope (the token endpoint knows no
     * tenant): the tenant was demanded (400 without it) and then ignored, so alice of acme and
     * alice of globex shared one token space and one issuance bound. Deployed before.
     */
    @Test
    void serverIssuedKeysCannotBeScopedByTenant() {
        config.put("idempotency.tenant.source", "RESOLVER");

        assertThatThrownBy(() -> check("pay", true, true))
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessage("IDEMP0161: " + WHERE + "pay: scope=TENANT_PRINCIPAL with serverIssuedKeys=true, but a"
                        + " server-issued token is its principal's, by the principal's name alone (the token endpoint"
                        + " knows no tenant): the tenant would be asked for and not used; allowed: scope PRINCIPAL with"
                        + " serverIssuedKeys=true where principal names are unique across tenants, or serverIssuedKeys=false"
                        + " with a tenant scope");
        config.put("Idempotent/scope", "PRINCIPAL");
        assertThatCode(() -> check("pay", true, true)).doesNotThrowAnyException();
    }

    /**
     * An endpoint whose own key header is the tenant header: every request of a tenant carried
     * the same key (its tenant's id), so its second order with the same body replayed the first.
     * IDEMP0160 compared the library-wide key header only.
     */
    @Test
    void anEndpointsKeyHeaderCannotBeTheTenantHeader() {
        config.put("idempotency.tenant.source", "HEADER");

        assertThatThrownBy(() -> check("refund", true, true))
                .isInstanceOf(IdempotencyDefinitionException.class)
                .hasMessage("IDEMP0163: " + WHERE + "refund: keyHeader=x-tenant-id with scope=TENANT names the header"
                        + " of the tenant (idempotency.tenant.header='X-Tenant-Id'): each request's key would be its"
                        + " tenant; allowed: a key header of its own, such as the default Idempotency-Key");
        config.put("idempotency.tenant.source", "JWT_CLAIM");
        assertThatCode(() -> check("refund", true, true)).as("the header is no tenant then").doesNotThrowAnyException();
    }

    @Test
    void otherScopesNeedNoSourceWhateverIsConfigured() throws Exception {
        check("note", false, false);
        config.put("idempotency.tenant.source", "HEADER");
        check("note", false, false);
        config.put("Idempotent/scope", "endpoint");
        check("place", false, false);
    }
}
