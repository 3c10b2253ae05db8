package dev.idempotency.it.broken;

import java.util.stream.Stream;

import jakarta.enterprise.context.ApplicationScoped;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.Idempotent;
import dev.idempotency.it.consumers.OrderMessage;

/**
 * Definitions that must each fail the deployment with their own coded message (the EJB one is
 * {@link AsynchronousEjbConsumer}: an enterprise bean class must be top-level, Liberty insists).
 */
public final class BrokenConsumers {

    private BrokenConsumers() {
    }

    /** IDEMP0109: no key source. */
    @ApplicationScoped
    public static class NoKeySource {
        @Idempotent
        public void onMessage(OrderMessage message) {
        }
    }

    /** IDEMP0110: the path does not exist. */
    @ApplicationScoped
    public static class BadPath {
        @Idempotent
        public void onMessage(@IdempotencyKey("orderNumber") OrderMessage message) {
        }
    }

    /** IDEMP0111: a key without @Idempotent. */
    @ApplicationScoped
    public static class KeyWithoutIdempotent {
        public void onMessage(@IdempotencyKey("orderNo") OrderMessage message) {
        }
    }

    /** IDEMP0112: a result that cannot be replayed. */
    @ApplicationScoped
    public static class StreamResult {
        @Idempotent
        public Stream<String> onMessage(@IdempotencyKey("orderNo") OrderMessage message) {
            return Stream.empty();
        }
    }
}
