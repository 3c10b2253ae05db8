package dev.idempotency.cdi;

import jakarta.annotation.Priority;
import jakarta.enterprise.util.AnnotationLiteral;

/** A {@code @Priority} instance, so that the interceptor's priority can come from config. */
final class PriorityLiteral extends AnnotationLiteral<Priority> implements Priority {

    private static final long serialVersionUID = 1L;

    private final int value;

    PriorityLiteral(int value) {
        this.value = value;
    }

    @Override
    public int value() {
        return value;
    }
}
