package dev.idempotency.jpa;

import java.util.Optional;
import java.util.function.Predicate;

/** The chain of causes of a failure, walked once for every question the store asks of it. */
final class Causes {

    private Causes() {
    }

    /**
     * @param failure a failure, its causes after it
     * @param test what is looked for
     * @return the first of the failure and its causes that passes the test (a cause that is its own
     *     cause ends the walk)
     */
    static Optional<Throwable> find(Throwable failure, Predicate<Throwable> test) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (test.test(cause)) {
                return Optional.of(cause);
            }
        }
        return Optional.empty();
    }
}
