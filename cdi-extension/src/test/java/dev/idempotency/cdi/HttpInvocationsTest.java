package dev.idempotency.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import jakarta.interceptor.InvocationContext;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.ServiceUnavailableException;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.TimeoutHandler;

import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.claim.EventPublisher;
import dev.idempotency.claim.HttpClaim;
import dev.idempotency.claim.InProgressWaits;
import dev.idempotency.claim.ReleaseRetries;
import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.config.Policies;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.RecordState;

/**
 * A resource method run under its request's claim ({@link HttpInvocations}), without a server: the
 * invocation is a hand-made {@link InvocationContext} over the method's parameters.
 */
class HttpInvocationsTest {

    /** An asynchronous resource method (not a bean here: only its policy and parameters are needed). */
    static class Orders {
        @Idempotent
        public void find(String id, AsyncResponse response) {
        }
    }

    private final ReleaseRetries retries = new ReleaseRetries();
    private WeldContainer container;
    private IdempotencyStore store;
    private IdempotencyPolicy policy;
    private Method find;

    @BeforeEach
    void start() throws Exception {
        container = TestContainers.weld().initialize();
        store = container.select(IdempotencyStore.class).get();
        find = Orders.class.getMethod("find", String.class, AsyncResponse.class);
        policy = Policies.unconfigured(Orders.class, find);
    }

    @AfterEach
    void stop() {
        container.close();
        retries.close();
    }

    /**
     * {@code AsyncResponse.resume(Throwable)} is the asynchronous form of a method that throws: the
     * key is released (as for a failed stage, and a synchronous method whose exception a mapper
     * turns into a {@code 404}), so that a retry runs again, and the container gets the exception
     * unchanged.
     */
    @Test
    void anAsyncResponseResumedWithAnExceptionReleasesTheKeyAsAThrowingMethodDoes() throws Exception {
        String owner = ((ClaimResult.Acquired) store.claim("k-1", "fp", Duration.ofMinutes(1), Duration.ofMinutes(10)))
                .owner();
        HttpClaim claim = new HttpClaim(store, policy, Orders.class, find, true, "k-1", owner, EventPublisher.NONE,
                new InProgressWaits(1), retries);
        List<Object> resumedWith = new ArrayList<>();
        AsyncResponse container = (AsyncResponse) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {AsyncResponse.class}, (proxy, method, args) -> {
                    if (method.getName().equals("resume")) {
                        resumedWith.add(args[0]);
                        return true;
                    }
                    return method.getReturnType() == boolean.class ? false : null;
                });
        NotFoundException missing = new NotFoundException("no such order");

        this.container.select(HttpInvocations.class).get().invoke(invocation(new Object[] {"o-1", container}, parameters -> {
            ((AsyncResponse) parameters[1]).resume(missing); // later, on another thread, in a real resource
            return null;
        }), claim);

        assertThat(resumedWith).as("the container gets the exception").containsExactly(missing);
        assertThat(store.claim("k-1", "fp", Duration.ofMinutes(1), Duration.ofMinutes(10))).as("released: a retry runs")
                .isInstanceOf(ClaimResult.Acquired.class);
    }

    /**
     * A timeout handler that answers through the {@code AsyncResponse} the method captured:
     * {@code response.resume(new ServiceUnavailableException())}. The work still runs, so the key
     * stays in progress until its lease ends, as for the container's own timeout {@code 503}: a
     * retry invited by that {@code 503} must not run the payment a second time, at once.
     */
    @Test
    void aTimeoutHandlerResumingWithAnExceptionKeepsTheKeyInProgress() throws Exception {
        String owner = ((ClaimResult.Acquired) store.claim("k-2", "fp", Duration.ofMinutes(1), Duration.ofMinutes(10)))
                .owner();
        HttpClaim claim = new HttpClaim(store, policy, Orders.class, find, true, "k-2", owner, EventPublisher.NONE,
                new InProgressWaits(1), retries);
        TimeoutHandler[] handler = new TimeoutHandler[1];
        List<Object> resumedWith = new ArrayList<>();
        AsyncResponse container = (AsyncResponse) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {AsyncResponse.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "setTimeoutHandler" -> handler[0] = (TimeoutHandler) args[0];
                        case "resume" -> resumedWith.add(args[0]);
                        default -> {
                        }
                    }
                    return method.getReturnType() == boolean.class ? true : null;
                });
        ServiceUnavailableException late = new ServiceUnavailableException("still working");

        this.container.select(HttpInvocations.class).get().invoke(invocation(new Object[] {"o-2", container}, parameters -> {
            AsyncResponse response = (AsyncResponse) parameters[1];
            response.setTimeoutHandler(timedOut -> response.resume(late)); // the captured one, as is common
            return null; // the work goes on on another thread
        }), claim);
        handler[0].handleTimeout(container); // the container's timeout

        assertThat(resumedWith).as("the container gets the handler's answer").containsExactly(late);
        assertThat(store.claim("k-2", "fp", Duration.ofMinutes(1), Duration.ofMinutes(10)))
                .as("still in progress: the work goes on").isInstanceOf(ClaimResult.Existing.class);
    }

    /**
     * A timeout handler that gives the work more time ({@code setTimeout}, as JAX-RS allows) answers
     * nothing: the work's own failure after it is a failure like any other, and releases the key. It
     * was taken for the timeout's answer, and the key held (or a mapper's {@code 404} stored).
     */
    @Test
    void aFailureAfterATimeoutHandlerExtendedTheTimeoutReleasesTheKey() throws Exception {
        HttpClaim claim = claimOf("k-3");
        TimeoutHandler[] handler = new TimeoutHandler[1];
        AsyncResponse container = container(handler, new ArrayList<>(), true);
        AsyncResponse[] wrapped = new AsyncResponse[1];

        this.container.select(HttpInvocations.class).get().invoke(invocation(new Object[] {"o-3", container}, parameters -> {
            wrapped[0] = (AsyncResponse) parameters[1];
            wrapped[0].setTimeoutHandler(timedOut -> timedOut.setTimeout(30, TimeUnit.SECONDS));
            return null;
        }), claim);
        handler[0].handleTimeout(container);
        wrapped[0].resume(new NotFoundException("no such order"));

        assertThat(store.claim("k-3", "fp", Duration.ofMinutes(1), Duration.ofMinutes(10))).as("released: a retry runs")
                .isInstanceOf(ClaimResult.Acquired.class);
    }

    /**
     * The work finished (the payment made) and resumed with its answer, but the container had
     * answered already (its timeout's {@code 503}, which keeps the key in progress): the answer was
     * dropped, nothing recorded that the work was done, and a retry after the lease paid again. It
     * is stored without its body: retries are told so ({@code 410}), never run it again.
     */
    @Test
    void anAnswerResumedTooLateIsRecordedSoThatNoRetryRunsTheWorkAgain() throws Exception {
        HttpClaim claim = claimOf("k-4");
        AsyncResponse container = container(new TimeoutHandler[1], new ArrayList<>(), false);

        this.container.select(HttpInvocations.class).get().invoke(invocation(new Object[] {"o-4", container}, parameters -> {
            ((AsyncResponse) parameters[1]).resume(jakarta.ws.rs.core.Response.status(201).entity("paid").build());
            return null;
        }), claim);

        IdempotencyRecord record = store.find("k-4").orElseThrow();
        assertThat(record.state()).as("not left in progress for a retry to take over").isEqualTo(RecordState.COMPLETED);
        assertThat(record.outcome().status()).isEqualTo(201);
        assertThat(record.outcome().bodyStored()).isFalse();
    }

    /**
     * A timeout handler that answers from another thread (it hands the {@code 503} to an executor):
     * the work still runs, so the key stays in progress, as when the handler answers itself.
     */
    @Test
    void aTimeoutHandlerAnsweringFromAnotherThreadKeepsTheKeyInProgress() throws Exception {
        HttpClaim claim = claimOf("k-5");
        TimeoutHandler[] handler = new TimeoutHandler[1];
        AsyncResponse container = container(handler, new ArrayList<>(), true);
        java.util.concurrent.ExecutorService answering = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            this.container.select(HttpInvocations.class).get().invoke(invocation(new Object[] {"o-5", container}, parameters -> {
                AsyncResponse response = (AsyncResponse) parameters[1];
                response.setTimeoutHandler(timedOut -> answering.execute(() -> timedOut.resume(
                        new ServiceUnavailableException("still working"))));
                return null;
            }), claim);
            handler[0].handleTimeout(container);
            answering.shutdown();
            assertThat(answering.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        } finally {
            answering.shutdownNow();
        }

        assertThat(store.claim("k-5", "fp", Duration.ofMinutes(1), Duration.ofMinutes(10)))
                .as("still in progress: the work goes on").isInstanceOf(ClaimResult.Existing.class);
    }

    private HttpClaim claimOf(String key) {
        String owner = ((ClaimResult.Acquired) store.claim(key, "fp", Duration.ofMinutes(1), Duration.ofMinutes(10))).owner();
        return new HttpClaim(store, policy, Orders.class, find, true, key, owner, EventPublisher.NONE,
                new InProgressWaits(1), retries);
    }

    /** @param resumes what the container's {@code resume} answers: {@code false} once it answered already */
    private AsyncResponse container(TimeoutHandler[] handler, List<Object> resumedWith, boolean resumes) {
        return (AsyncResponse) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {AsyncResponse.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "setTimeoutHandler" -> handler[0] = (TimeoutHandler) args[0];
                        case "resume" -> {
                            resumedWith.add(args[0]);
                            return resumes;
                        }
                        default -> {
                        }
                    }
                    return method.getReturnType() == boolean.class ? true : null;
                });
    }

    /** The method's body, given the parameters it is called with. */
    private interface Body {
        Object run(Object[] parameters) throws Exception;
    }

    private InvocationContext invocation(Object[] arguments, Body body) {
        Object[][] parameters = {arguments};
        return new InvocationContext() {
            @Override
            public Object getTarget() {
                return new Orders();
            }

            @Override
            public Object getTimer() {
                return null;
            }

            @Override
            public Method getMethod() {
                return find;
            }

            @Override
            public Constructor<?> getConstructor() {
                return null;
            }

            @Override
            public Object[] getParameters() {
                return parameters[0].clone();
            }

            @Override
            public void setParameters(Object[] replaced) {
                parameters[0] = replaced.clone();
            }

            @Override
            public Map<String, Object> getContextData() {
                return new HashMap<>();
            }

            @Override
            public Object proceed() throws Exception {
                return body.run(parameters[0]);
            }
        };
    }
}
