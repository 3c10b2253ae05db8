package dev.idempotency.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.jboss.weld.context.bound.BoundRequestContext;
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
import dev.idempotency.spi.StoredOutcome;

/**
 * The request-scoped holder of the filter's claim, made by {@link CurrentHttpClaimScope}: one per
 * request, and a claim the request left unfinished is released when the request's context ends
 * (the request never reached the method, or ended without a response the library recorded).
 */
class CurrentHttpClaimScopeTest {

    /** The JAX-RS interface a resource implements (RESTEasy hands out its method as the resource method). */
    interface PaymentsApi {
        void pay();
    }

    /** A resource method's class (not a bean here: only its policy is needed). */
    static class Payments implements PaymentsApi {
        @Idempotent
        @Override
        public void pay() {
        }
    }

    /** A bean the resource calls, with a method of the same name and parameters as the resource method's, of the same interface. */
    static class Ledger implements PaymentsApi {
        @Override
        public void pay() {
        }
    }

    private final ReleaseRetries retries = new ReleaseRetries();
    private WeldContainer container;
    private IdempotencyStore store;
    private BoundRequestContext requests;
    private IdempotencyPolicy policy;
    private Method pay;

    @BeforeEach
    void start() throws Exception {
        container = TestContainers.weld().initialize();
        store = container.select(IdempotencyStore.class).get();
        requests = container.select(BoundRequestContext.class).get();
        policy = Policies.unconfigured(Payments.class, "pay");
        pay = Payments.class.getMethod("pay");
    }

    @AfterEach
    void stop() {
        container.close();
        retries.close();
    }

    /** Runs {@code work} in a request context of its own, ended afterwards as a server ends it. */
    private void inRequest(Consumer<CurrentHttpClaim> work) {
        requests.associate(new HashMap<>());
        requests.activate();
        try {
            work.accept(container.select(CurrentHttpClaim.class).get());
        } finally {
            requests.invalidate();
            requests.deactivate();
        }
    }

    private HttpClaim claim(String key) {
        String owner = ((ClaimResult.Acquired) store.claim(key, "fp", Duration.ofMinutes(1), Duration.ofMinutes(10))).owner();
        return new HttpClaim(store, policy, Payments.class, pay, false, key, owner, EventPublisher.NONE, new InProgressWaits(1), retries);
    }

    @Test
    void aClaimTheRequestLeftUnfinishedIsReleasedWhenItsContextEnds() {
        inRequest(current -> current.set(claim("never-ran")));

        assertThat(store.find("never-ran")).as("released: a retry runs").isEmpty();
        assertThat(store.claim("never-ran", "fp", Duration.ofMinutes(1), Duration.ofMinutes(10)))
                .isInstanceOf(ClaimResult.Acquired.class);
    }

    /**
     * An asynchronous endpoint whose request failed before its method ran (a later request filter
     * threw with no mapper, the resource could not be made): no work goes on, yet the claim was
     * left to its lease, and retries got {@code 409} until then.
     */
    @Test
    void anAsyncEndpointsClaimWhoseMethodNeverRanIsReleasedWhenTheRequestEnds() {
        String owner = ((ClaimResult.Acquired) store.claim("async-never-ran", "fp", Duration.ofMinutes(1),
                Duration.ofMinutes(10))).owner();
        inRequest(current -> current.set(new HttpClaim(store, policy, Payments.class, pay, true, "async-never-ran", owner,
                EventPublisher.NONE, new InProgressWaits(1), retries)));

        assertThat(store.find("async-never-ran")).as("released: a retry runs").isEmpty();
    }

    @Test
    void anAsyncEndpointsClaimWhoseMethodRanOutlivesTheRequestsFirstEnd() {
        String owner = ((ClaimResult.Acquired) store.claim("async-ran", "fp", Duration.ofMinutes(1),
                Duration.ofMinutes(10))).owner();
        inRequest(current -> {
            current.set(new HttpClaim(store, policy, Payments.class, pay, true, "async-ran", owner, EventPublisher.NONE,
                    new InProgressWaits(1), retries));
            current.take(pay, new Payments());
        });

        assertThat(store.find("async-ran")).as("its work goes on: its filters end the claim").isPresent();
    }

    @Test
    void aCompletedClaimOutlivesItsRequest() {
        inRequest(current -> {
            current.set(claim("paid"));
            current.take(pay, new Payments()).complete(StoredOutcome.of(201, Map.of("Location", List.of("/payments/1")), "paid".getBytes()));
        });

        assertThat(store.find("paid").orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(store.find("paid").orElseThrow().outcome().headers()).containsEntry("Location", List.of("/payments/1"));
    }

    /**
     * A resource that is not a CDI bean calls an {@code @Idempotent} bean whose method has the
     * resource method's name and parameters: the bean's call must not run under the request's
     * claim (its own key would never be claimed), only the resource method of that class.
     */
    @Test
    void aMethodOfAnotherClassWithTheResourceMethodsSignatureDoesNotTakeTheRequestsClaim() throws Exception {
        HttpClaim claim = claim("other-class");
        Method ledgerPay = Ledger.class.getMethod("pay");
        inRequest(current -> {
            current.set(claim);
            assertThat(current.take(ledgerPay, new Ledger())).as("another class's method").isNull();
            assertThat(current.take(pay, new Payments())).as("the resource method").isSameAs(claim);
        });
    }

    /**
     * RESTEasy gives the method of the JAX-RS interface as the resource method: a bean of the same
     * interface that the resource calls must not take the request's claim either.
     */
    @Test
    void aBeanOfTheResourcesJaxRsInterfaceDoesNotTakeTheRequestsClaim() throws Exception {
        String owner = ((ClaimResult.Acquired) store.claim("interface", "fp", Duration.ofMinutes(1), Duration.ofMinutes(10)))
                .owner();
        HttpClaim claim = new HttpClaim(store, policy, Payments.class, PaymentsApi.class.getMethod("pay"), false,
                "interface", owner, EventPublisher.NONE, new InProgressWaits(1), retries);
        Method ledgerPay = Ledger.class.getMethod("pay");
        inRequest(current -> {
            current.set(claim);
            assertThat(current.take(ledgerPay, new Ledger())).as("another class of the interface").isNull();
            assertThat(current.take(pay, new Payments())).as("the resource method").isSameAs(claim);
        });
    }

    /**
     * The method answered (its answer picked for storing) but the request ended before the body was
     * written: the work is done, so the answer is stored without its body, never released.
     */
    @Test
    void anAnswerPickedButNeverWrittenIsStoredWithoutItsBodyWhenTheRequestEnds() {
        inRequest(current -> {
            current.set(claim("picked"));
            current.take(pay, new Payments()).status(201);
        });

        IdempotencyRecord kept = store.find("picked").orElseThrow();
        assertThat(kept.state()).as("not released: a retry must not run it again").isEqualTo(RecordState.COMPLETED);
        assertThat(kept.outcome().status()).isEqualTo(201);
        assertThat(kept.outcome().bodyStored()).isFalse();
    }

    /**
     * The method returned, and no response filter of the library ran after it (an application's
     * response filter threw, and the container answered without the filters): the request ended
     * with the claim open, which was released, and a retry ran the work again.
     */
    @Test
    void anAnswerTheMethodReturnedThatNoFilterSawIsStoredWithoutItsBodyWhenTheRequestEnds() {
        inRequest(current -> {
            current.set(claim("returned"));
            current.take(pay, new Payments()).returned(jakarta.ws.rs.core.Response.status(201).build());
        });

        IdempotencyRecord kept = store.find("returned").orElseThrow();
        assertThat(kept.state()).as("not released: a retry must not run it again").isEqualTo(RecordState.COMPLETED);
        assertThat(kept.outcome().status()).isEqualTo(201);
        assertThat(kept.outcome().bodyStored()).isFalse();
    }

    @Test
    void eachRequestHasAHolderOfItsOwn() {
        HttpClaim first = claim("first");
        inRequest(current -> {
            current.set(first);
            assertThat(current.take(pay, new Payments())).isSameAs(first);
        });
        inRequest(current -> assertThat(current.take(pay, new Payments())).as("nothing set in this request").isNull());
    }
}
