package dev.idempotency.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;

import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.IdempotencyScope;
import dev.idempotency.Idempotent;
import dev.idempotency.exceptions.IdempotencyDefinitionException;

/** Explicit endpoint names: stable key spaces, shared only on purpose. */
class EndpointNamesTest {

    static final AtomicInteger EXECUTIONS = new AtomicInteger();

    @ApplicationScoped
    public static class PlaceOrder {
        @Idempotent(name = "orders.place")
        public int place(@IdempotencyKey String orderNo) {
            return EXECUTIONS.incrementAndGet();
        }
    }

    @ApplicationScoped
    public static class PlaceOrderToo {
        @Idempotent(name = "orders.place")
        public int submit(@IdempotencyKey String orderNo) {
            return EXECUTIONS.incrementAndGet();
        }
    }

    @ApplicationScoped
    public static class SharedWeb {
        @Idempotent(name = "orders.shared", sharedName = true)
        public int place(@IdempotencyKey String orderNo) {
            return EXECUTIONS.incrementAndGet();
        }
    }

    @ApplicationScoped
    public static class SharedQueue {
        @Idempotent(name = "orders.shared", sharedName = true)
        public int place(@IdempotencyKey String orderNo) {
            return EXECUTIONS.incrementAndGet();
        }
    }

    /** Shares the name and how its keys are made, but answers another type: a retry would read one as the other. */
    @ApplicationScoped
    public static class SharedRefund {
        @Idempotent(name = "orders.shared", sharedName = true)
        public String place(@IdempotencyKey String orderNo) {
            return "refund " + EXECUTIONS.incrementAndGet();
        }
    }

    /** Shares the name, but its keys are not scoped by principal: the two would never meet. */
    @ApplicationScoped
    public static class SharedPerEndpoint {
        @Idempotent(name = "orders.shared", sharedName = true, scope = IdempotencyScope.ENDPOINT)
        public int place(@IdempotencyKey String orderNo) {
            return EXECUTIONS.incrementAndGet();
        }
    }

    /** A component the container does not report as a bean (a message-driven bean, say). */
    public static class OrderListener {
        @Idempotent(name = "orders.place")
        public int onOrder(@IdempotencyKey String orderNo) {
            return EXECUTIONS.incrementAndGet();
        }
    }

    /** JAX-RS resources that are no beans: JAX-RS reports them when it starts. */
    @Path("a")
    public static class ResourceA {
        @POST
        @Idempotent(name = "resources.shared")
        public void create() {
        }
    }

    @Path("b")
    public static class ResourceB {
        @POST
        @Idempotent(name = "resources.shared")
        public void create() {
        }
    }

    /** A resource that is a CDI bean: known at deployment. */
    @Path("orders")
    @ApplicationScoped
    public static class OrdersResource {
        @POST
        @Idempotent(name = "orders.create")
        public void create() {
        }
    }

    /** What some runtimes report instead of the bean class: a class generated from it, its name without "$$". */
    public static class OrdersResourceView extends OrdersResource {
    }

    /** A message-driven bean whose name nobody else holds. */
    public static class UniqueListener {
        @Idempotent(name = "orders.unique")
        public int onOrder(@IdempotencyKey String orderNo) {
            return EXECUTIONS.incrementAndGet();
        }
    }

    @ApplicationScoped
    public static class BadName {
        @Idempotent(name = "orders place")
        public void place(@IdempotencyKey String orderNo) {
        }
    }

    @Test
    void twoMethodsWithOneNameFailTheDeployment() {
        assertThatThrownBy(() -> TestContainers.weld(PlaceOrder.class, PlaceOrderToo.class).initialize().close())
                .hasStackTraceContaining("IDEMP0121: the endpoint name \"orders.place\" is used by bean "
                        + PlaceOrder.class.getName() + ", method place and bean " + PlaceOrderToo.class.getName()
                        + ", method submit");
    }

    @Test
    void methodsThatShareANameOnPurposeAnswerEachOthersRetries() {
        try (WeldContainer container = TestContainers.weld(SharedWeb.class, SharedQueue.class).initialize()) {
            int first = container.select(SharedWeb.class).get().place("o-1");

            assertThat(container.select(SharedQueue.class).get().place("o-1")).as("a replay of the first").isEqualTo(first);
            assertThat(EXECUTIONS.get()).isEqualTo(first);
        }
    }

    @Test
    void methodsThatShareANameButNotHowTheirKeysAreScopedFailTheDeployment() {
        // Their keys are hashed with their scope: they would never answer each other's retries.
        assertThatThrownBy(() -> TestContainers.weld(SharedWeb.class, SharedPerEndpoint.class).initialize().close())
                .hasStackTraceContaining("IDEMP0152: the endpoint name \"orders.shared\" is shared by bean "
                        + SharedPerEndpoint.class.getName() + ", method place (scope ENDPOINT) and bean "
                        + SharedWeb.class.getName() + ", method place (scope PRINCIPAL)");
    }

    /**
     * Two methods sharing a name whose results differ: the second's call of a key the first ran
     * was answered with the first's stored result read as its own type (an int's JSON read as a
     * String, a Receipt's as a Refund with every property null), and did not run. Deployed before.
     */
    @Test
    void methodsThatShareANameButNotTheirResultsTypeFailTheDeployment() {
        assertThatThrownBy(() -> TestContainers.weld(SharedWeb.class, SharedRefund.class).initialize().close())
                .hasStackTraceContaining("IDEMP0162: the endpoint name \"orders.shared\" is shared by bean "
                        + SharedRefund.class.getName() + ", method place (returns java.lang.String) and bean "
                        + SharedWeb.class.getName() + ", method place (returns java.lang.Integer)");
    }

    @Test
    void aComponentThatIsNotABeanIsRefusedAtItsFirstCallWhenItsNameIsTaken() throws Exception {
        try (WeldContainer container = TestContainers.weld(PlaceOrder.class).initialize()) {
            IdempotencyExtension extension = container.select(IdempotencyExtension.class).get();
            var onOrder = OrderListener.class.getMethod("onOrder", String.class);

            for (int call = 0; call < 2; call++) {
                assertThatThrownBy(() -> extension.plan(OrderListener.class, onOrder))
                        .isInstanceOf(IdempotencyDefinitionException.class)
                        .hasMessageContaining("IDEMP0121: the endpoint name \"orders.place\" is used by bean "
                                + OrderListener.class.getName() + ", method onOrder and bean "
                                + PlaceOrder.class.getName() + ", method place");
            }
        }
    }

    @Test
    void componentsFoundAfterTheDeploymentAreJudgedByTheirOwnNames() throws Exception {
        try (WeldContainer container = TestContainers.weld(PlaceOrder.class).initialize()) {
            IdempotencyExtension extension = container.select(IdempotencyExtension.class).get();
            extension.policy(ResourceA.class, ResourceA.class.getMethod("create"));

            assertThatThrownBy(() -> extension.policy(ResourceB.class, ResourceB.class.getMethod("create")))
                    .as("a second resource with the name, when JAX-RS starts")
                    .isInstanceOf(IdempotencyDefinitionException.class).hasMessageStartingWith("IDEMP0121")
                    .hasMessageContaining(ResourceA.class.getName()).hasMessageContaining(ResourceB.class.getName());
            assertThat(extension.plan(UniqueListener.class, UniqueListener.class.getMethod("onOrder", String.class)))
                    .as("a listener with a name of its own, whatever other components hold").isNotNull();
        }
        try (WeldContainer container = TestContainers.weld(OrdersResource.class).initialize()) {
            IdempotencyExtension extension = container.select(IdempotencyExtension.class).get();
            assertThat(extension.policy(OrdersResourceView.class, OrdersResourceView.class.getMethod("create")).endpoint())
                    .as("a class generated from a bean is that bean").isEqualTo("orders.create");
        }
    }

    @Test
    void aNameThatIsNotPrintableWithoutSpacesFailsTheDeployment() {
        assertThatThrownBy(() -> TestContainers.weld(BadName.class).initialize().close())
                .hasStackTraceContaining("IDEMP0120: bean " + BadName.class.getName()
                        + ", method place: @Idempotent(name)=\"orders place\" is not a valid endpoint name");
    }
}
