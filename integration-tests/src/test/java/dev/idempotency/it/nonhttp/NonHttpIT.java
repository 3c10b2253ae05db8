package dev.idempotency.it.nonhttp;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.Http.number;
import static dev.idempotency.it.support.Http.text;
import static dev.idempotency.it.support.Problems.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import dev.idempotency.it.consumers.AfterFailureConsumer;
import dev.idempotency.it.consumers.ApiKeyAuthenticated;
import dev.idempotency.it.consumers.ApiKeyAuthentication;
import dev.idempotency.it.consumers.CdiOrderConsumer;
import dev.idempotency.it.consumers.ConsumerHarness;
import dev.idempotency.it.consumers.ContainerNamedUsers;
import dev.idempotency.it.consumers.EjbOrderConsumer;
import dev.idempotency.it.consumers.ObserverOrderConsumer;
import dev.idempotency.it.consumers.OrderAfterJaxRs;
import dev.idempotency.it.consumers.OrderInFilter;
import dev.idempotency.it.consumers.OrderMessage;
import dev.idempotency.it.consumers.Receipt;
import dev.idempotency.it.consumers.Redeliveries;
import dev.idempotency.it.consumers.SideEffects;
import dev.idempotency.it.consumers.SingletonOrderConsumer;
import dev.idempotency.it.consumers.TransactionalConsumer;
import dev.idempotency.it.consumers.TtlPrecedence;
import dev.idempotency.it.consumers.WaitingOrderConsumer;
import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.OnSampleApp;

/**
 * {@code @Idempotent} on CDI beans, EJBs and observers, on real Payara Micro: a message delivered
 * 20 times, 10 of them at once, has its side effect exactly once; every caller gets an equal
 * result or {@code IdempotencyConflictException}.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class NonHttpIT extends OnSampleApp {

    static final String PREFIX = "dev.idempotency.it.consumers.TtlPrecedence$";

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleApp("consumers", String.join("\n",
                "Idempotent/lease=PT1S",
                "Idempotent/ttl=PT2S",
                PREFIX + "ClassAndMethod/Idempotent/ttl=PT1H",
                PREFIX + "ClassAndMethod/methodLevel/Idempotent/ttl=PT2S",
                WaitingOrderConsumer.class.getName() + "/Idempotent/lease=PT5S",
                WaitingOrderConsumer.class.getName() + "/Idempotent/ttl=PT10S"))
                .addClasses(OrderMessage.class, Receipt.class, SideEffects.class, CdiOrderConsumer.class,
                        EjbOrderConsumer.class, SingletonOrderConsumer.class, ObserverOrderConsumer.class,
                        TtlPrecedence.class, TtlPrecedence.GlobalBeatsAnnotation.class,
                        TtlPrecedence.ClassAndMethod.class, ConsumerHarness.class, Redeliveries.class,
                        Redeliveries.Delivery.class, TransactionalConsumer.class, ContainerNamedUsers.class,
                        WaitingOrderConsumer.class, AfterFailureConsumer.class, AfterFailureConsumer.Compensation.class,
                        ApiKeyAuthenticated.class, ApiKeyAuthentication.class, OrderInFilter.class, OrderAfterJaxRs.class);
    }

    HttpResponse<byte[]> post(String path) {
        return http.send(http.request(path).POST(HttpRequest.BodyPublishers.noBody()).build());
    }

    @ParameterizedTest
    @ValueSource(strings = {"cdi", "ejb", "singleton", "observer"})
    void aMessageDeliveredTwentyTimesTenAtOnceHasItsEffectOnce(String variant) {
        String report = text(post("api/harness/deliver/" + variant + "?orderNo=" + newKey()
                + "&times=20&concurrent=10&delayMs=300"));

        System.out.println(variant + ": " + report);
        assertThat(number(report, "executions")).as(report).isEqualTo(1);
        assertThat(report).contains("\"errors\":[]");
        assertThat(number(report, "equalResults") + number(report, "conflicts")).as(report).isEqualTo(20);
        assertThat(number(report, "conflicts")).as("the concurrent burst overlapped the first").isPositive();
    }

    @Test
    void redeliveriesInFlightThatWaitAllGetTheFirstResult() {
        // inProgress = WAIT, with a lease of 5 s for this consumer: the wait (up to 5 s) outlasts
        // the 1 s run, which the concurrent burst overlaps (the CONFLICT variants show it does).
        String report = text(post("api/harness/deliver/waiting?orderNo=" + newKey()
                + "&times=20&concurrent=10&delayMs=1000"));

        assertThat(number(report, "executions")).as(report).isEqualTo(1);
        assertThat(report).contains("\"errors\":[]");
        assertThat(number(report, "conflicts")).as("nobody was told to retry: " + report).isZero();
        assertThat(number(report, "equalResults")).as(report).isEqualTo(20);
    }

    @Test
    void genericResultsComeBackEqual() {
        String orderNo = newKey();
        String ejb = text(post("api/harness/deliver/ejb?orderNo=" + orderNo + "&times=2&concurrent=0&delayMs=0"));
        assertThat(ejb).contains("[Receipt[orderNo=" + orderNo + ", sequence=").contains("notes=[copy]]]");
        assertThat(number(ejb, "equalResults")).isEqualTo(2);
        String singleton = text(post("api/harness/deliver/singleton?orderNo=" + orderNo + "&times=2&concurrent=0&delayMs=0"));
        assertThat(singleton).contains("Optional[Receipt[orderNo=" + orderNo);
        assertThat(number(singleton, "equalResults")).isEqualTo(2);
    }

    @Test
    void aConflictReachingJaxRsIsA409Problem() throws Exception {
        String orderNo = newKey();
        long before = http.count("api/harness/count/cdi");
        // This deployment's lease is 1 s: the duplicate comes within it.
        CompletableFuture<HttpResponse<byte[]>> first = CompletableFuture.supplyAsync(
                () -> post("api/harness/order/" + orderNo + "?delayMs=700"));
        http.awaitCount("api/harness/count/cdi", before + 1);

        HttpResponse<byte[]> duplicate = post("api/harness/order/" + orderNo + "?delayMs=700");

        assertThat(duplicate.statusCode()).isEqualTo(409);
        assertThat(duplicate.headers().firstValue("Content-Type")).get().asString().startsWith("application/problem+json");
        assertThat(text(duplicate)).contains("https://idempotency.dev/problems/request-in-progress")
                .as("a plain sentence for the client; the coded message stays in the server's log")
                .doesNotContain("IDEMP", "dev.idempotency", "hash");
        assertThat(first.get().statusCode()).isEqualTo(200);
        assertThat(post("api/harness/order/" + orderNo + "?delayMs=700").body()).isEqualTo(first.get().body());
    }

    @Test
    void configPrecedenceShowsInBehaviour() throws Exception {
        String key = newKey();
        String[] methods = {"global-beats-annotation", "class-beats-global", "method-beats-class"};
        int[] before = new int[methods.length];
        for (int i = 0; i < methods.length; i++) {
            before[i] = number(text(post("api/harness/ttl/" + methods[i] + "/" + key)), "count");
        }

        Thread.sleep(3000); // past the 2 s ttls, far below the 1 h one

        int[] after = new int[methods.length];
        for (int i = 0; i < methods.length; i++) {
            after[i] = number(text(post("api/harness/ttl/" + methods[i] + "/" + key)), "count");
        }
        assertThat(after[0] - before[0]).as("global 2 s beats the annotation's 1 h: expired, ran again").isEqualTo(1);
        assertThat(after[1] - before[1]).as("class 1 h beats global 2 s: replayed").isZero();
        assertThat(after[2] - before[2]).as("method 2 s beats class 1 h: expired, ran again").isEqualTo(1);
    }

    @Test
    void anOutcomeCountsOnlyOnceItsTransactionCommitted() {
        String rolledBack = newKey();
        int first = number(text(post("api/harness/transactional/" + rolledBack + "?rollback=true")), "count");
        int second = number(text(post("api/harness/transactional/" + rolledBack + "?rollback=true")), "count");
        assertThat(second - first).as("rolled back: the duplicate runs again").isEqualTo(1);

        String committed = newKey();
        String once = text(post("api/harness/transactional/" + committed + "?rollback=false"));
        String twice = text(post("api/harness/transactional/" + committed + "?rollback=false"));
        assertThat(number(twice, "result")).as("committed: the duplicate gets the stored result")
                .isEqualTo(number(once, "result"));
        assertThat(number(twice, "count")).isEqualTo(number(once, "count"));
    }

    /**
     * docs/non-http-callers.md: the same key twice in one transaction is a duplicate of a call still
     * in progress. On the JPA store the second claim had waited for the row the first call's
     * transaction holds (the transaction waiting for it), and failed as a store outage after the
     * database's lock timeout.
     */
    @Test
    void theSameKeyTwiceInOneTransactionIsAConflictAtOnceAndTheRollbackFreesIt() {
        String key = newKey();
        long before = http.count("api/harness/count/transactional");

        String twice = text(post("api/harness/transactional-twice/" + key));

        assertThat(twice).contains("\"second\":\"dev.idempotency.exceptions.IdempotencyConflictException\"")
                .contains("\"rollbackOnly\":true");
        assertThat(number(twice, "millis")).as("answered at once, not after a lock timeout").isLessThan(2_000);
        String after = text(post("api/harness/transactional/" + key + "?rollback=false"));
        assertThat(number(after, "count") - before).as("rolled back: the key is free, the charge runs").isEqualTo(2);
    }

    /**
     * An observer {@code during = AFTER_FAILURE}: the server calls it from the rolled-back
     * transaction's afterCompletion, that transaction still on the thread. Its work runs outside
     * it and counts: the same order's second rollback does not compensate it again.
     */
    @Test
    void anAfterFailureObserverRunsOncePerKey() {
        String key = newKey();
        long before = http.count("api/harness/count/after-failure");

        text(post("api/harness/after-failure/" + key));
        String second = text(post("api/harness/after-failure/" + key));

        assertThat(number(second, "count") - before).as("compensated once").isEqualTo(1);
    }

    @Test
    void anAnonymousNonHttpCallerIsNeverTheUserNamedLikeTheServersAnonymousPrincipal() {
        for (String name : new String[] {"ANONYMOUS", "anonymous", "UNAUTHENTICATED"}) {
            if (text(http.postJson("api/harness/whoami", null, "", name)).contains("\"user\":\"\"")) {
                // Open Liberty itself takes a user named UNAUTHENTICATED for the unauthenticated caller
                System.out.println("this server treats a user named " + name + " as unauthenticated: skipped");
                continue;
            }
            String orderNo = newKey();
            HttpResponse<byte[]> anonymous = http.postJson("api/harness/order/" + orderNo, null, "", null);
            HttpResponse<byte[]> named = http.postJson("api/harness/order/" + orderNo, null, "", name);

            assertThat(anonymous.statusCode()).isEqualTo(200);
            assertThat(named.statusCode()).as(name + ": " + text(named)).isEqualTo(200);
            assertThat(text(named)).as("the user " + name + " has a key space of its own: a run, not a replay")
                    .isNotEqualTo(text(anonymous));
            assertThat(http.postJson("api/harness/order/" + orderNo, null, "", name).body()).isEqualTo(named.body());
            assertThat(http.postJson("api/harness/order/" + orderNo, null, "", null).body()).isEqualTo(anonymous.body());
        }
    }

    /** Where the bean that places an order is called. */
    enum CalledFrom {
        /** the resource method */
        RESOURCE,
        /** an application JAX-RS filter after the authentication filter ({@code OrderInFilter}) */
        JAX_RS_FILTER,
        /** a servlet filter after its chain, the resource's answer sent ({@code OrderAfterJaxRs}) */
        SERVLET_FILTER_AFTER_JAX_RS,
        /** a servlet filter after its chain, the asynchronous resource's answer still to come */
        SERVLET_FILTER_BEFORE_ASYNC_ANSWER
    }

    /**
     * A caller the application authenticates in a JAX-RS filter (its {@code SecurityContext}) is the
     * caller of the beans the resource calls, as it is of an {@code @Idempotent} resource method:
     * the servlet request knows no user there, and taking it for anonymous made every such caller
     * share one key space, so bob was replayed alice's receipt. So too for a bean a servlet filter
     * calls after its chain, where RESTEasy's context is gone: there each caller's call is a replay
     * of the receipt the resource placed for that caller.
     */
    @ParameterizedTest
    @EnumSource(CalledFrom.class)
    void aCallerAuthenticatedByTheApplicationsJaxRsFilterHasANonHttpKeySpaceOfItsOwn(CalledFrom where) {
        String orderNo = newKey();
        String alice = apiKeyOrder(orderNo, "alice", where);
        String bob = apiKeyOrder(orderNo, "bob", where);

        assertThat(alice).contains(orderNo);
        assertThat(bob).as("bob's call runs for bob: never a replay of alice's receipt").isNotEqualTo(alice);
        assertThat(apiKeyOrder(orderNo, "alice", where)).isEqualTo(alice);
        assertThat(apiKeyOrder(orderNo, "bob", where)).isEqualTo(bob);
    }

    /** @return the receipt of the order placed where {@code where} says, as text */
    private String apiKeyOrder(String orderNo, String apiKey, CalledFrom where) {
        String path = switch (where) {
            case RESOURCE, SERVLET_FILTER_AFTER_JAX_RS -> "api/harness/api-key-order/" + orderNo;
            case JAX_RS_FILTER -> "api/harness/api-key-order/filtered";
            case SERVLET_FILTER_BEFORE_ASYNC_ANSWER -> "api/harness/api-key-order-async/" + orderNo + "?delayMs=200";
        };
        String probe = newKey();
        HttpRequest.Builder request = http.request(path).header("X-Api-Key", apiKey);
        switch (where) {
            case JAX_RS_FILTER -> request.header("X-Order-In-Filter", orderNo);
            case SERVLET_FILTER_AFTER_JAX_RS, SERVLET_FILTER_BEFORE_ASYNC_ANSWER ->
                    request.header("X-Order-After-JaxRs", orderNo).header("X-Probe", probe);
            default -> { }
        }
        HttpResponse<byte[]> answer = http.send(request.POST(HttpRequest.BodyPublishers.noBody()).build());
        assertThat(answer.statusCode()).as(text(answer)).isEqualTo(200);
        if (where == CalledFrom.RESOURCE || where == CalledFrom.JAX_RS_FILTER) {
            return text(answer);
        }
        // the servlet filter's call may come after the answer
        String receipt = text(http.awaitOk("api/harness/after-jaxrs/" + probe, Duration.ofSeconds(5)));
        if (where == CalledFrom.SERVLET_FILTER_BEFORE_ASYNC_ANSWER) {
            assertThat(receipt).as("called while the answer was still to come").endsWith("(before the answer)");
        }
        return receipt;
    }

    @Test
    void anAnonymousNonHttpCallerIsRefusedTokens() {
        assertProblem(http.postJson("api/harness/token", null, "", null), 403, "anonymous-token-request");
        assertThat(http.postJson("api/harness/token", null, "", "ANONYMOUS").statusCode())
                .as("a real user of that name is no anonymous caller").isEqualTo(200);
    }
}
