package dev.idempotency.it.consumers;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.Idempotent;

/**
 * Three methods whose ttl comes from different levels, so that config precedence shows in
 * behaviour: a key that expired runs again. The deployment's config sets the global ttl to 2 s,
 * this class's to 1 h, and {@code methodLevel}'s to 2 s.
 */
public final class TtlPrecedence {

    private TtlPrecedence() {
    }

    /** Annotation says 1 h; the global 2 s wins. */
    @ApplicationScoped
    public static class GlobalBeatsAnnotation {
        @Inject
        SideEffects effects;

        @Idempotent(ttl = "PT1H")
        public int work(@IdempotencyKey String key) {
            return effects.record("global-beats-annotation", 0);
        }
    }

    /** The class's 1 h beats the global 2 s; the method's 2 s beats the class's 1 h. */
    @ApplicationScoped
    public static class ClassAndMethod {
        @Inject
        SideEffects effects;

        @Idempotent
        public int classLevel(@IdempotencyKey String key) {
            return effects.record("class-beats-global", 0);
        }

        @Idempotent
        public int methodLevel(@IdempotencyKey String key) {
            return effects.record("method-beats-class", 0);
        }
    }
}
