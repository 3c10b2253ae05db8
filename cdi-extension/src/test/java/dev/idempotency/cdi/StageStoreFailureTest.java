package dev.idempotency.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;

import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.Idempotent;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.store.DelegatingStore;
import dev.idempotency.store.InMemoryIdempotencyStore;

/**
 * docs/non-http-callers.md: every refusal of the library's, a store that cannot be reached
 * included, reaches the caller of a method returning a stage as a failed stage, never thrown; and
 * work whose outcome could not be stored never commits.
 */
class StageStoreFailureTest {

    /** A store that joins the caller's transaction (as the JPA store does), whose completions can be made to fail. */
    @Alternative
    @Priority(500)
    @ApplicationScoped
    public static class JoiningStore extends DelegatingStore {
        private final AtomicInteger failingCompletions = new AtomicInteger();

        public JoiningStore() {
            super(new InMemoryIdempotencyStore(1_000, System::nanoTime));
        }

        /** The next completion fails, as a store that cannot be reached. */
        public void failNextCompletion() {
            failingCompletions.set(1);
        }

        @Override
        public boolean joinsCallerTransaction() {
            return true;
        }

        @Override
        public boolean complete(String key, String owner, StoredOutcome outcome, Duration retention) {
            if (failingCompletions.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IdempotencyStoreException("the store cannot be reached (complete)");
            }
            return super.complete(key, owner, outcome, retention);
        }
    }

    @ApplicationScoped
    public static class Payments {
        final AtomicInteger executions = new AtomicInteger();

        @Idempotent
        public CompletionStage<String> pay(@IdempotencyKey String id) {
            return CompletableFuture.completedFuture("paid #" + executions.incrementAndGet());
        }
    }

    private final FakeJta jta = FakeJta.INSTANCE;
    private WeldContainer container;
    private Payments payments;
    private JoiningStore store;

    @BeforeEach
    void start() {
        FakeJta.install();
        container = TestContainers.weld(Payments.class, JoiningStore.class).initialize();
        payments = container.select(Payments.class).get();
        store = container.select(JoiningStore.class).get();
    }

    @AfterEach
    void stop() {
        jta.forget();
        container.close();
        FakeJta.uninstall();
    }

    @Test
    void aStoreFailureStoringAStagesValueInTheTransactionIsAFailedStageAndTheTransactionRollsBack() throws Exception {
        // The failure was thrown from the method: its caller, written for a stage, got an exception
        // it never expected from the call itself.
        store.failNextCompletion();
        jta.begin();
        CompletionStage<String> answer = payments.pay("p-1");
        assertThat(answer.toCompletableFuture()).failsWithin(5, TimeUnit.SECONDS).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(IdempotencyStoreException.class);
        assertThat(jta.commit()).as("the work whose outcome was not stored must not commit").isFalse();

        assertThat(payments.pay("p-1").toCompletableFuture().get(5, TimeUnit.SECONDS))
                .as("rolled back, the work runs again").isEqualTo("paid #2");
    }
}
