package dev.idempotency.cdi;

import static dev.idempotency.testing.Jwts.jwt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.AnonymousCallers;
import dev.idempotency.IdempotencyKey;
import dev.idempotency.IdempotencyScope;
import dev.idempotency.Idempotent;
import dev.idempotency.exceptions.AuthenticationRequiredException;
import dev.idempotency.exceptions.MissingTenantException;
import dev.idempotency.spi.IdempotencyScopeResolver;
import dev.idempotency.spi.ScopeRequest;

/**
 * Tenant scopes and anonymous callers on the non-HTTP path, in a real CDI container with the
 * in-memory store: the tenant from the application's resolver or the caller's JWT; no tenant, or
 * an anonymous caller where one must authenticate, runs nothing; a tenant source a non-HTTP call
 * cannot have, or a resolver that is not there, fails the deployment.
 */
class TenantScopedInvocationsTest {

    /** The caller, switchable by the test (a server takes it from the security context). */
    @ApplicationScoped
    public static class Caller {
        static volatile Principal current;

        @Produces
        Principal principal() {
            return current;
        }
    }

    /** The application's resolver: the tenant the test says, and what it was asked. */
    @ApplicationScoped
    public static class TenantOfTheThread implements IdempotencyScopeResolver {
        static volatile String tenant;
        static final List<ScopeRequest> ASKED = new CopyOnWriteArrayList<>();

        @Override
        public String resolve(ScopeRequest request) {
            ASKED.add(request);
            return tenant;
        }
    }

    @ApplicationScoped
    public static class AnotherResolver implements IdempotencyScopeResolver {
        @Override
        public String resolve(ScopeRequest request) {
            return "other";
        }
    }

    @ApplicationScoped
    public static class Orders {
        final AtomicInteger executions = new AtomicInteger();

        public int executions() {
            return executions.get(); // through the client proxy, not its field
        }

        @Idempotent(scope = IdempotencyScope.TENANT)
        public int place(@IdempotencyKey String orderNo) {
            return executions.incrementAndGet();
        }

        @Idempotent(scope = IdempotencyScope.TENANT_PRINCIPAL)
        public int placeForUser(@IdempotencyKey String orderNo) {
            return executions.incrementAndGet();
        }
    }

    @ApplicationScoped
    public static class MembersOnly {
        final AtomicInteger executions = new AtomicInteger();

        public int executions() {
            return executions.get();
        }

        @Idempotent(anonymous = AnonymousCallers.REJECT)
        public int join(@IdempotencyKey String requestId) {
            return executions.incrementAndGet();
        }

        @Idempotent(anonymous = AnonymousCallers.REJECT)
        public CompletionStage<Integer> joinLater(@IdempotencyKey String requestId) {
            return CompletableFuture.completedFuture(executions.incrementAndGet());
        }
    }

    private final List<String> properties = new ArrayList<>();

    private void config(String key, String value) {
        System.setProperty(key, value);
        properties.add(key);
    }

    @AfterEach
    void reset() {
        Caller.current = null;
        TenantOfTheThread.tenant = null;
        TenantOfTheThread.ASKED.clear();
        properties.forEach(System::clearProperty);
        ConfigProviderResolver.instance().releaseConfig(ConfigProvider.getConfig());
    }

    @Test
    void theResolversTenantKeepsTwoTenantsApartAndNoTenantRunsNothing() {
        config("idempotency.tenant.source", "RESOLVER");
        try (WeldContainer container = TestContainers.weld(Orders.class, Caller.class, TenantOfTheThread.class)
                .initialize()) {
            Orders orders = container.select(Orders.class).get();
            Caller.current = () -> "alice";

            TenantOfTheThread.tenant = "acme";
            int acme = orders.place("o-1");
            TenantOfTheThread.tenant = "globex";
            int globex = orders.place("o-1");
            TenantOfTheThread.tenant = "acme";
            Caller.current = () -> "bob";
            int acmeByBob = orders.place("o-1");

            assertThat(globex).as("the same key in another tenant runs").isNotEqualTo(acme);
            assertThat(acmeByBob).as("TENANT: one space for all of acme's callers").isEqualTo(acme);
            assertThat(orders.executions()).isEqualTo(2);

            TenantOfTheThread.tenant = null;
            assertThatThrownBy(() -> orders.place("o-2")).isInstanceOf(MissingTenantException.class)
                    .hasMessageStartingWith("IDEMP0321: bean " + Orders.class.getName() + ", method place")
                    .hasMessageContaining("RESOLVER");
            TenantOfTheThread.tenant = "";
            assertThatThrownBy(() -> orders.place("o-2")).isInstanceOf(MissingTenantException.class);
            Caller.current = null;
            assertThatThrownBy(() -> orders.place("o-2")).as("anonymous, and the tenant may come with credentials")
                    .isInstanceOf(AuthenticationRequiredException.class).hasMessageStartingWith("IDEMP0322");
            assertThat(orders.executions()).as("never a shared space instead").isEqualTo(2);

            ScopeRequest asked = TenantOfTheThread.ASKED.get(0);
            assertThat(asked.http()).isFalse();
            assertThat(asked.header("X-Tenant-Id")).isNull();
            assertThat(asked.host()).isNull();
            assertThat(asked.principal().getName()).isEqualTo("alice");
            assertThat(asked.endpoint()).isEqualTo(Orders.class.getName() + "#place(java.lang.String)");
        }
    }

    @Test
    void inTenantPrincipalTheSameNameInTwoTenantsIsTwoUsers() {
        config("idempotency.tenant.source", "RESOLVER");
        try (WeldContainer container = TestContainers.weld(Orders.class, Caller.class, TenantOfTheThread.class)
                .initialize()) {
            Orders orders = container.select(Orders.class).get();
            Caller.current = () -> "alice";

            TenantOfTheThread.tenant = "acme";
            int first = orders.placeForUser("o-1");
            assertThat(orders.placeForUser("o-1")).as("a retry").isEqualTo(first);
            Caller.current = () -> "bob";
            int bob = orders.placeForUser("o-1");
            TenantOfTheThread.tenant = "globex";
            Caller.current = () -> "alice";
            int aliceOfGlobex = orders.placeForUser("o-1");

            assertThat(List.of(first, bob, aliceOfGlobex)).doesNotHaveDuplicates();
            assertThat(orders.executions()).isEqualTo(3);
        }
    }

    @Test
    void theTenantCanBeAClaimOfTheCallersJwt() {
        config("idempotency.tenant.source", "JWT_CLAIM");
        config("idempotency.tenant.jwt-claim", "tid");
        try (WeldContainer container = TestContainers.weld(Orders.class, Caller.class).initialize()) {
            Orders orders = container.select(Orders.class).get();

            Caller.current = jwt("alice", Map.of("tid", "acme"));
            int acme = orders.placeForUser("o-1");
            Caller.current = jwt("alice", Map.of("tid", "globex"));
            int globex = orders.placeForUser("o-1");
            Caller.current = jwt("alice", Map.of("tid", "acme"));
            int acmeAgain = orders.placeForUser("o-1");

            assertThat(globex).isNotEqualTo(acme);
            assertThat(acmeAgain).isEqualTo(acme);
            Caller.current = jwt("alice", Map.of());
            assertThatThrownBy(() -> orders.placeForUser("o-1")).isInstanceOf(MissingTenantException.class)
                    .hasMessageContaining("JWT_CLAIM");
            Caller.current = () -> "carol"; // authenticated, but not by a JWT
            assertThatThrownBy(() -> orders.placeForUser("o-1")).isInstanceOf(MissingTenantException.class);
            Caller.current = null;
            assertThatThrownBy(() -> orders.placeForUser("o-1")).isInstanceOf(AuthenticationRequiredException.class);
            assertThat(orders.executions()).isEqualTo(2);
        }
    }

    @Test
    void anAnonymousCallerOfAMethodThatRejectsThemRunsNothing() throws Exception {
        try (WeldContainer container = TestContainers.weld(MembersOnly.class, Caller.class).initialize()) {
            MembersOnly members = container.select(MembersOnly.class).get();

            assertThatThrownBy(() -> members.join("r-1")).isInstanceOf(AuthenticationRequiredException.class)
                    .hasMessage("IDEMP0322: bean " + MembersOnly.class.getName() + ", method join: the caller is"
                            + " anonymous, and this method needs an authenticated caller (anonymous=REJECT, or a tenant"
                            + " taken from the credentials); nothing was executed");
            assertThatThrownBy(() -> members.joinLater("r-2").toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .as("a stage method is refused with a failed stage").isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(AuthenticationRequiredException.class);
            Caller.current = () -> "ANONYMOUS"; // how Payara names the unauthenticated caller
            assertThatThrownBy(() -> members.join("r-1")).isInstanceOf(AuthenticationRequiredException.class);
            assertThat(members.executions()).isZero();

            Caller.current = () -> "alice";
            assertThat(members.join("r-1")).isEqualTo(1);
            assertThat(members.join("r-1")).isEqualTo(1);
        }
    }

    @Test
    void tenantScopesWithoutASourceANonHttpCallCanHaveOrAResolverFailTheDeployment() {
        assertThatThrownBy(() -> TestContainers.weld(Orders.class, Caller.class).initialize().close())
                .hasStackTraceContaining("IDEMP0125: bean " + Orders.class.getName() + ", method place")
                .hasStackTraceContaining("IDEMP0125: bean " + Orders.class.getName() + ", method placeForUser");
        reset();

        config("idempotency.tenant.source", "HEADER");
        assertThatThrownBy(() -> TestContainers.weld(Orders.class, Caller.class).initialize().close())
                .hasStackTraceContaining("IDEMP0126: bean " + Orders.class.getName() + ", method place")
                .hasStackTraceContaining("idempotency.tenant.source=HEADER");
        reset();

        config("idempotency.tenant.source", "RESOLVER");
        assertThatThrownBy(() -> TestContainers.weld(Orders.class, Caller.class).initialize().close())
                .hasStackTraceContaining("IDEMP0127: idempotency.tenant.source=RESOLVER and bean "
                        + Orders.class.getName())
                .hasStackTraceContaining("no bean implements dev.idempotency.spi.IdempotencyScopeResolver");
        assertThatThrownBy(() -> TestContainers.weld(Orders.class, Caller.class, TenantOfTheThread.class,
                AnotherResolver.class).initialize().close())
                .hasStackTraceContaining("IDEMP0127")
                .hasStackTraceContaining("2 beans implement dev.idempotency.spi.IdempotencyScopeResolver: ["
                        + AnotherResolver.class.getName() + ", " + TenantOfTheThread.class.getName() + "]");
    }

    @Test
    void aResolverIsNotPickedUpUnlessConfigured() {
        try (WeldContainer container = TestContainers.weld(MembersOnly.class, Caller.class, TenantOfTheThread.class)
                .initialize()) {
            Caller.current = () -> "alice";
            container.select(MembersOnly.class).get().join("r-1");

            assertThat(TenantOfTheThread.ASKED).as("no tenant-scoped method, no source: never asked").isEmpty();
        }
    }
}
