package dev.idempotency;

import java.util.Objects;

/**
 * Fired (as a CDI event) for each outcome of an {@code @Idempotent} method, so that applications
 * can log, count or alert on them:
 *
 * <pre>{@code
 * void onConflict(@Observes IdempotencyEvent event) {
 *     if (event.outcome() == IdempotencyOutcome.CONFLICT) { ... }
 * }
 * }</pre>
 *
 * <p>Synchronous observers run on the thread that decided, after the library decided the
 * answer: usually the request's; a stage's end on the thread completing the stage, a release the
 * store first failed on the library's release-retry thread, an end decided by a transaction's
 * completion on the transaction manager's thread (which have no request scope). An observer that
 * throws is logged and never changes the answer. Asynchronous observers
 * ({@code @ObservesAsync}) are notified too. Whether anyone observes the event is decided once,
 * when the application starts: without observers (and without metrics) nothing is built or fired
 * per request.
 *
 * @param outcome what happened
 * @param endpoint the endpoint's identity: its {@code @Idempotent(name)}, or
 *     {@code fully.qualified.Class#method(erased.ParameterType,...)}
 * @param keyHash a short prefix of the scoped, hashed key: it tells retries of one key apart from
 *     other keys without revealing the key the client sent (the same prefix appears in the
 *     library's log records)
 * @param http whether the method was called through the HTTP contract ({@code Idempotency-Key}
 *     header) rather than with an {@link IdempotencyKey} parameter
 */
public record IdempotencyEvent(IdempotencyOutcome outcome, String endpoint, String keyHash, boolean http) {

    /**
     * Checks the members.
     *
     * @param outcome what happened, not null
     * @param endpoint the endpoint's identity, not null
     * @param keyHash a short prefix of the scoped, hashed key, not null
     * @param http whether the method was called through the HTTP contract
     */
    public IdempotencyEvent {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(keyHash, "keyHash");
    }
}
