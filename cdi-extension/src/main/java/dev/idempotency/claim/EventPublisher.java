package dev.idempotency.claim;

import java.util.List;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

import dev.idempotency.IdempotencyEvent;
import dev.idempotency.IdempotencyOutcome;
import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.internal.Messages;
import dev.idempotency.internal.ThrottledLog;

/**
 * Publishes each {@link IdempotencyEvent} (an outcome: claimed, replayed, released...) to whoever
 * listens: the application's CDI observers, the metrics counters. Who listens is decided once, at start; with
 * nobody listening, {@link #fire} returns at once and builds nothing.
 */
public final class EventPublisher {

    private static final Logger LOG = Logger.getLogger(EventPublisher.class.getName());
    /** A listener that fails on every event must not flood the log. */
    private static final ThrottledLog LISTENER_FAILURES = new ThrottledLog(LOG, 60, System::nanoTime);

    /** Nobody listens. */
    public static final EventPublisher NONE = new EventPublisher(List.of());

    private final List<Consumer<IdempotencyEvent>> listeners;
    private final boolean listened;

    /**
     * @param listeners notified in this order; each one's failure is logged and does not reach
     *     the others nor the caller
     */
    public EventPublisher(List<Consumer<IdempotencyEvent>> listeners) {
        this.listeners = List.copyOf(listeners);
        this.listened = !this.listeners.isEmpty();
    }

    /**
     * Logs a listener's failure, at most once a minute (one that fails on every event must not
     * flood the log).
     *
     * @param outcome the event's outcome
     * @param failure what the listener threw
     */
    public static void listenerFailed(IdempotencyOutcome outcome, Throwable failure) {
        LISTENER_FAILURES.log(Level.WARNING, Messages.listenerFailed(outcome.name()), failure);
    }

    /** @return whether anybody listens */
    public boolean listened() {
        return listened;
    }

    /**
     * @param outcome what happened
     * @param policy the method's policy
     * @param scopedKey the scoped key (only a short prefix of it is reported)
     * @param http whether the call came through the HTTP contract
     */
    public void fire(IdempotencyOutcome outcome, IdempotencyPolicy policy, String scopedKey, boolean http) {
        if (!listened) {
            return;
        }
        IdempotencyEvent event = new IdempotencyEvent(outcome, policy.endpoint(), ScopedKey.forLog(scopedKey), http);
        for (Consumer<IdempotencyEvent> listener : listeners) {
            try {
                listener.accept(event);
            } catch (RuntimeException e) {
                // The answer is decided already; a broken observer must not change it.
                listenerFailed(outcome, e);
            }
        }
    }
}
