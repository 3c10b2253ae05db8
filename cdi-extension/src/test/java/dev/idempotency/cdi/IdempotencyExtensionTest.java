package dev.idempotency.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.spi.InterceptionType;
import jakarta.ws.rs.POST;

import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyScope;
import dev.idempotency.Idempotent;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.store.InMemoryIdempotencyStore;

/** The extension on a real CDI container (Weld SE) with a real MicroProfile Config (SmallRye). */
class IdempotencyExtensionTest {

    @ApplicationScoped
    public static class Payments {
        @POST
        @Idempotent(ttl = "PT1H")
        public String charge(String order) {
            return "charged " + order;
        }
    }

    @ApplicationScoped
    public static class ShortTtl {
        @POST
        @Idempotent(ttl = "PT1S")
        public void charge() {
        }
    }

    @ApplicationScoped
    @Idempotent
    public static class Refunds {
        @POST
        public void refund() {
        }

        public void helper() {
        }
    }

    @ApplicationScoped
    public static class MessageConsumer {
        @Idempotent
        public void onMessage(String message) {
        }
    }

    @Alternative
    @Priority(500)
    @ApplicationScoped
    public static class CustomStore implements IdempotencyStore {
        @Override
        public ClaimResult claim(String key, String fingerprint, Duration lease, Duration retention) {
            return new ClaimResult.Acquired("custom", false);
        }

        @Override
        public boolean complete(String key, String owner, StoredOutcome outcome, Duration retention) {
            return true;
        }

        @Override
        public boolean release(String key, String owner) {
            return true;
        }

        @Override
        public Optional<IdempotencyRecord> find(String key) {
            return Optional.empty();
        }
    }

    private final List<String> properties = new ArrayList<>();

    private void config(String key, String value) {
        System.setProperty(key, value);
        properties.add(key);
    }

    @AfterEach
    void clearConfig() {
        properties.forEach(System::clearProperty);
        ConfigProviderResolver.instance().releaseConfig(ConfigProvider.getConfig());
    }

    /** @return what the extension logged while the beans deployed (and shut down again) */
    private static List<java.util.logging.LogRecord> loggedWhileDeploying(Class<?>... beans) {
        List<java.util.logging.LogRecord> logged = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord entry) {
                logged.add(entry);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        java.util.logging.Logger logger = java.util.logging.Logger.getLogger(IdempotencyExtension.class.getName());
        logger.addHandler(handler);
        try {
            weld(beans).initialize().close();
        } finally {
            logger.removeHandler(handler);
        }
        return logged;
    }

    private static Weld weld(Class<?>... beans) {
        return TestContainers.weld(beans);
    }

    @Test
    void validDefinitionsDeployAndAreResolvedOnce() {
        try (WeldContainer container = weld(Payments.class, Refunds.class).initialize()) {
            IdempotencyExtension extension = container.select(IdempotencyExtension.class).get();

            assertThat(extension.isIntercepted(Payments.class)).isTrue();
            assertThat(extension.isIntercepted(Refunds.class)).as("class-level annotation").isTrue();
            assertThat(container.select(Payments.class).get().charge("o-1"))
                    .as("outside a request, the interceptor proceeds").isEqualTo("charged o-1");
            assertThat(container.getBeanManager().resolveInterceptors(InterceptionType.AROUND_INVOKE,
                    new Idempotent.Literal()))
                    .as("the interceptor is enabled without beans.xml").hasSize(1);
        }
    }

    /**
     * An interceptor priority at or below {@code @Transactional}'s (200) puts {@code @Idempotent}
     * outside it: a method's own transaction then begins inside the claim. Allowed (a deployment
     * may want it), but said at deployment, with what it costs.
     */
    @Test
    void anInterceptorPriorityOutsideTransactionalIsWarnedAboutAtDeployment() {
        config("idempotency.interceptor.priority", "100");
        List<java.util.logging.LogRecord> logged = loggedWhileDeploying(Payments.class);

        assertThat(logged).anySatisfy(entry -> {
            assertThat(entry.getLevel()).isEqualTo(java.util.logging.Level.WARNING);
            assertThat(entry.getMessage()).startsWith("IDEMP0154: idempotency.interceptor.priority=100")
                    .contains("@Transactional");
        });
    }

    @Test
    void anIdempotentMethodWithoutKeySourceFailsTheDeployment() {
        assertThatThrownBy(() -> weld(MessageConsumer.class).initialize().close())
                .hasStackTraceContaining("IDEMP0109: bean " + MessageConsumer.class.getName()
                        + ", method onMessage: @Idempotent has no key source; allowed: a JAX-RS resource method");
    }

    @Test
    void aTtlShorterThanTheLeaseFailsTheDeploymentNamingBeanMethodKeyAndValue() {
        assertThatThrownBy(() -> weld(ShortTtl.class).initialize().close())
                .hasStackTraceContaining("IDEMP0103: bean " + ShortTtl.class.getName() + ", method charge: "
                        + "@Idempotent(ttl)='PT1S' is shorter than @Idempotent(lease)='PT60S'");
    }

    @Test
    void aBadConfiguredValueFailsTheDeploymentNamingTheConfigKey() {
        config(Payments.class.getName() + "/charge/Idempotent/scope", "TEAM");

        assertThatThrownBy(() -> weld(Payments.class).initialize().close())
                .hasStackTraceContaining("IDEMP0104: bean " + Payments.class.getName() + ", method charge: "
                        + Payments.class.getName() + "/charge/Idempotent/scope='TEAM' is not a scope; allowed: "
                        + "[PRINCIPAL, ENDPOINT, TENANT, TENANT_PRINCIPAL]");
    }

    /**
     * A config key in the library's namespace naming no member of {@code @Idempotent} (a typo, a
     * member's name in another case) was ignored: the method ran on the annotation's values while
     * its operator believed the ttl changed.
     */
    @Test
    void aConfigKeyNamingNoMemberOfIdempotentFailsTheDeploymentNamingTheKey() {
        config(Payments.class.getName() + "/charge/Idempotent/tll", "PT10S");
        config("%test." + Payments.class.getName() + "/Idempotent/Lease", "PT10S");

        assertThatThrownBy(() -> weld(Payments.class).initialize().close())
                .hasStackTraceContaining("IDEMP0156: " + Payments.class.getName() + "/charge/Idempotent/tll='PT10S'"
                        + " names no member of @Idempotent; allowed:")
                .hasStackTraceContaining("IDEMP0156: %test." + Payments.class.getName() + "/Idempotent/Lease='PT10S'")
                .hasStackTraceContaining("lease, maxWait").hasStackTraceContaining(", ttl (");
    }

    /**
     * A server-wide config source may hold another application's keys, written for a newer version
     * of the library: one naming no class of this application, or the application-wide
     * {@code Idempotent/<member>}, is warned about, never fails this application.
     */
    @Test
    void aConfigKeyNamingNoMemberOutsideThisApplicationsClassesIsWarnedAbout() {
        config("Idempotent/TTL", "PT10S");
        config("com.other.app.Orders/place/Idempotent/retries", "3");
        List<java.util.logging.LogRecord> logged = loggedWhileDeploying(Payments.class);

        assertThat(logged).filteredOn(entry -> entry.getMessage().startsWith("IDEMP0156")).hasSize(2)
                .allSatisfy(entry -> assertThat(entry.getLevel()).isEqualTo(java.util.logging.Level.WARNING))
                .anySatisfy(entry -> assertThat(entry.getMessage()).startsWith("IDEMP0156: Idempotent/TTL='PT10S'"))
                .anySatisfy(entry -> assertThat(entry.getMessage())
                        .startsWith("IDEMP0156: com.other.app.Orders/place/Idempotent/retries='3'"));
    }

    @Test
    void configOverridesAreAppliedAtDeployment() throws Exception {
        config("Idempotent/scope", "ENDPOINT");
        config(Payments.class.getName() + "/Idempotent/lease", "PT2S");

        try (WeldContainer container = weld(Payments.class).initialize()) {
            IdempotencyExtension extension = container.select(IdempotencyExtension.class).get();
            var policy = extension.policy(Payments.class, Payments.class.getMethod("charge", String.class));

            assertThat(policy.scope()).isEqualTo(IdempotencyScope.ENDPOINT);
            assertThat(policy.lease()).isEqualTo(Duration.ofSeconds(2));
            assertThat(policy.ttl()).isEqualTo(Duration.ofHours(1));
        }
    }

    @Test
    void aBadLibrarySettingFailsTheDeployment() {
        config("idempotency.max-key-length", "0");

        assertThatThrownBy(() -> weld(Payments.class).initialize().close())
                .hasStackTraceContaining("IDEMP0106: library setting idempotency.max-key-length='0'");
    }

    @Test
    void theInMemoryStoreIsTheDefaultAndAnAlternativeStoreWins() {
        config("idempotency.memory.max-entries", "42");
        try (WeldContainer container = weld(Payments.class).initialize()) {
            IdempotencyStore store = container.select(IdempotencyRuntime.class).get().store();
            assertThat(store.claim("k", "fp", Duration.ofSeconds(1))).isInstanceOf(ClaimResult.Acquired.class);
            assertThat(container.select(InMemoryIdempotencyStore.class).get().maxEntries()).isEqualTo(42);
        }
        try (WeldContainer container = weld(Payments.class, CustomStore.class).initialize()) {
            ClaimResult claim = container.select(IdempotencyRuntime.class).get().store().claim("k", "fp", Duration.ofSeconds(1));
            assertThat(((ClaimResult.Acquired) claim).owner()).isEqualTo("custom");
        }
    }
}
