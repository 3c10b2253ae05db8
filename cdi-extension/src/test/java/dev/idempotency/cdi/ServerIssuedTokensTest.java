package dev.idempotency.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.IdempotencyTokens;
import dev.idempotency.Idempotent;
import dev.idempotency.IssuedToken;
import dev.idempotency.exceptions.AnonymousTokenRequestException;
import dev.idempotency.exceptions.IdempotencyKeyReuseException;
import dev.idempotency.exceptions.TooManyTokensException;
import dev.idempotency.exceptions.UnknownIdempotencyTokenException;

/** Server-issued tokens on the non-HTTP path, in a real CDI container with the in-memory store. */
class ServerIssuedTokensTest {

    /** The caller, switchable by the test (a server takes it from the security context). */
    @ApplicationScoped
    public static class Caller {
        static volatile String name;

        @Produces
        Principal principal() {
            String current = name;
            return current == null ? null : () -> current;
        }
    }

    @ApplicationScoped
    public static class Orders {
        final AtomicInteger executions = new AtomicInteger();

        public int executions() {
            return executions.get();
        }

        @Idempotent(serverIssuedKeys = true)
        public int place(@IdempotencyKey String token) {
            return executions.incrementAndGet();
        }

        @Idempotent(serverIssuedKeys = true)
        public int cancel(@IdempotencyKey String token) {
            return 1000 + executions.incrementAndGet();
        }
    }

    @ApplicationScoped
    public static class FailingOpen {
        @Idempotent(serverIssuedKeys = true, failOpen = true)
        public int place(@IdempotencyKey String token) {
            return 1;
        }
    }

    /** A resource whose requests may come without a key. */
    @jakarta.ws.rs.Path("optional")
    @ApplicationScoped
    public static class Optional {
        @jakarta.ws.rs.POST
        @Idempotent(serverIssuedKeys = true, required = false)
        public int place() {
            return 1;
        }
    }

    /** A bean called without HTTP: required means nothing there (a call without its key is refused). */
    @ApplicationScoped
    public static class OptionalWithoutHttp {
        @Idempotent(serverIssuedKeys = true, required = false)
        public int place(@IdempotencyKey String token) {
            return 1;
        }
    }

    @ApplicationScoped
    public static class TokenAndTenant {
        @Idempotent(serverIssuedKeys = true)
        public int place(@IdempotencyKey String token, @IdempotencyKey String tenant) {
            return 1;
        }
    }

    @ApplicationScoped
    public static class ShortLived {
        @Idempotent(serverIssuedKeys = true, ttl = "PT10M")
        public int place(@IdempotencyKey String token) {
            return 1;
        }
    }

    private final List<String> properties = new ArrayList<>();

    private void config(String key, String value) {
        System.setProperty(key, value);
        properties.add(key);
    }

    @AfterEach
    void reset() {
        Caller.name = null;
        properties.forEach(System::clearProperty);
        ConfigProviderResolver.instance().releaseConfig(ConfigProvider.getConfig());
    }

    @Test
    void anIssuedTokenRunsOnceAndReplaysAndAnyOtherKeyRunsNothing() {
        try (WeldContainer container = TestContainers.weld(Orders.class, Caller.class).initialize()) {
            Orders orders = container.select(Orders.class).get();
            IdempotencyTokens tokens = container.select(IdempotencyTokens.class).get();
            Caller.name = "alice";

            assertThatThrownBy(() -> orders.place("made-up-by-the-client"))
                    .isInstanceOf(UnknownIdempotencyTokenException.class)
                    .hasMessageContaining("IDEMP0316").hasMessageNotContaining("made-up-by-the-client");
            assertThat(orders.executions()).isZero();

            IssuedToken token = tokens.issue();
            assertThat(token.token()).matches("[A-Za-z0-9_-]{43}");
            assertThat(orders.place(token.token())).isEqualTo(1);
            assertThat(orders.place(token.token())).as("a used token replays").isEqualTo(1);
            assertThatThrownBy(() -> orders.cancel(token.token()))
                    .as("a token is one operation: sent to another endpoint it is a reused key")
                    .isInstanceOf(IdempotencyKeyReuseException.class);
            assertThat(orders.executions()).isEqualTo(1);
            assertThat(tokens.issue().token()).isNotEqualTo(token.token());
        }
    }

    @Test
    void aTokenIsUselessToAnotherPrincipal() {
        try (WeldContainer container = TestContainers.weld(Orders.class, Caller.class).initialize()) {
            Orders orders = container.select(Orders.class).get();
            Caller.name = "alice";
            String alices = container.select(IdempotencyTokens.class).get().issue().token();

            Caller.name = "mallory";
            assertThatThrownBy(() -> orders.place(alices)).isInstanceOf(UnknownIdempotencyTokenException.class);
            Caller.name = null;
            assertThatThrownBy(() -> orders.place(alices)).as("nor to anonymous callers")
                    .isInstanceOf(UnknownIdempotencyTokenException.class);

            Caller.name = "alice";
            assertThat(orders.place(alices)).as("the refusals did not burn it").isEqualTo(1);
            assertThat(orders.executions()).isEqualTo(1);
        }
    }

    @Test
    void issuanceIsBoundedPerPrincipal() {
        config("idempotency.tokens.max-per-principal", "3");
        try (WeldContainer container = TestContainers.weld(Orders.class, Caller.class).initialize()) {
            IdempotencyTokens tokens = container.select(IdempotencyTokens.class).get();
            Caller.name = "alice";
            for (int i = 0; i < 3; i++) {
                tokens.issue();
            }
            assertThatThrownBy(tokens::issue).isInstanceOf(TooManyTokensException.class)
                    .hasMessageContaining("IDEMP0314")
                    .satisfies(e -> assertThat(((TooManyTokensException) e).retryAfterSeconds()).isBetween(1L, 1800L));

            Caller.name = "bob";
            assertThat(tokens.issue().token()).as("other principals are not affected").isNotBlank();
        }
    }

    @Test
    void anonymousCallersGetNoTokensUnlessSwitchedOn() {
        try (WeldContainer container = TestContainers.weld(Orders.class, Caller.class).initialize()) {
            assertThatThrownBy(() -> container.select(IdempotencyTokens.class).get().issue())
                    .isInstanceOf(AnonymousTokenRequestException.class).hasMessageContaining("IDEMP0319");
        }
        config("idempotency.tokens.anonymous", "true");
        try (WeldContainer container = TestContainers.weld(Orders.class, Caller.class).initialize()) {
            String shared = container.select(IdempotencyTokens.class).get().issue().token();
            assertThat(container.select(Orders.class).get().place(shared)).isEqualTo(1);
        }
    }

    @Test
    void tokensThatCouldRunUncheckedOrNeverFitAKeyFailTheDeployment() {
        assertThatThrownBy(() -> TestContainers.weld(FailingOpen.class, Caller.class).initialize().close())
                .hasStackTraceContaining("IDEMP0118: bean " + FailingOpen.class.getName() + ", method place:"
                        + " serverIssuedKeys=true with failOpen=true");
        assertThatThrownBy(() -> TestContainers.weld(Optional.class, Caller.class).initialize().close())
                .as("a request without a key would run unchecked, every time")
                .hasStackTraceContaining("IDEMP0155: bean " + Optional.class.getName() + ", method place:"
                        + " serverIssuedKeys=true with required=false");
        TestContainers.weld(OptionalWithoutHttp.class, Caller.class).initialize().close();
        assertThatThrownBy(() -> TestContainers.weld(TokenAndTenant.class, Caller.class).initialize().close())
                .as("two key parts joined are no token: every call would be refused")
                .hasStackTraceContaining("IDEMP0151: bean " + TokenAndTenant.class.getName() + ", method place:"
                        + " serverIssuedKeys=true with 2 @IdempotencyKey parameters");
        config("idempotency.max-key-length", "40");
        assertThatThrownBy(() -> TestContainers.weld(Orders.class, Caller.class).initialize().close())
                .hasStackTraceContaining("IDEMP0119").hasStackTraceContaining("idempotency.max-key-length=40");
    }

    @Test
    void aTtlShorterThanTheTokensFailsTheDeployment() {
        assertThatThrownBy(() -> TestContainers.weld(ShortLived.class, Caller.class).initialize().close())
                .hasStackTraceContaining("IDEMP0117: bean " + ShortLived.class.getName() + ", method place:"
                        + " serverIssuedKeys=true with ttl=PT10M, shorter than idempotency.tokens.ttl=PT30M");
    }
}
