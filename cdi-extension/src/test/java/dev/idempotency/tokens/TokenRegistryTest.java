package dev.idempotency.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.Principal;
import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.idempotency.exceptions.TooManyTokensException;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.store.InMemoryIdempotencyStore;

/** Tokens issued by the node, on the in-memory store behind a switch that can take it down. */
class TokenRegistryTest {

    private static final Principal ALICE = () -> "alice";

    /** The in-memory store, unreachable while {@code down}. */
    private static final class Switchable implements IdempotencyStore {
        private final IdempotencyStore store = new InMemoryIdempotencyStore(1_000, System::nanoTime);
        volatile boolean down;

        private void call() {
            if (down) {
                throw new IdempotencyStoreException("store down");
            }
        }

        @Override
        public ClaimResult claim(String key, String fingerprint, Duration lease, Duration retention) {
            call();
            return store.claim(key, fingerprint, lease, retention);
        }

        @Override
        public boolean complete(String key, String owner, StoredOutcome outcome, Duration retention) {
            call();
            return store.complete(key, owner, outcome, retention);
        }

        @Override
        public boolean release(String key, String owner) {
            call();
            return store.release(key, owner);
        }

        @Override
        public Optional<IdempotencyRecord> find(String key) {
            call();
            return store.find(key);
        }
    }

    /**
     * A token the store could not keep was never issued: it does not count against the caller's
     * limit, so a client that retried through an outage is not refused for the rest of the window
     * once the store is back.
     */
    @Test
    void aTokenTheStoreCouldNotKeepDoesNotCountAgainstTheCallersLimit() {
        Switchable store = new Switchable();
        TokenRegistry tokens = new TokenRegistry(store, Duration.ofMinutes(30), 3, false);
        store.down = true;
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> tokens.issue(ALICE)).isInstanceOf(IdempotencyStoreException.class);
        }
        store.down = false;

        for (int i = 0; i < 3; i++) {
            assertThat(tokens.issue(ALICE).token()).isNotBlank();
        }
        assertThatThrownBy(() -> tokens.issue(ALICE)).as("the limit still holds for tokens issued")
                .isInstanceOf(TooManyTokensException.class);
    }
}
