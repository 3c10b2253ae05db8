package dev.idempotency.sample.imports;

import java.time.Duration;
import java.time.Instant;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;

/**
 * Counts a failed processing attempt of a message, in a transaction of its own (the attempt's own
 * rolled back, and its idempotency claim was given back): the message then waits longer after
 * each failure (the poll interval doubled per failure, at most {@link #LONGEST_WAIT}), so that
 * messages that keep failing never hold the head of the table against newer ones, and after
 * {@code sample.imports.max-attempts} failures it is given up ({@code FAILED}) for a person to look
 * at.
 */
@ApplicationScoped
public class ImportFailures {

    /** The longest a failed message waits before its next attempt. */
    static final Duration LONGEST_WAIT = Duration.ofMinutes(1);

    @PersistenceContext(unitName = "payments")
    EntityManager entityManager;

    /**
     * Counts a failure once: only while the message is PENDING with the failures the worker read
     * before its attempt. Workers that read the message as due at the same time may each have
     * tried it (the library gives the key back when an attempt rolls back, before its failure is
     * counted here); their failures count as one, and the message is then not due for the others.
     *
     * @param messageId the message whose attempt failed
     * @param attemptsRead the failed attempts the worker read before its attempt
     * @param failure why
     * @param maxAttempts the failed attempts after which it is given up
     * @param pollInterval the workers' poll interval: the first wait after a failure is twice it
     * @return the message's state now ({@code PENDING} or {@code FAILED}; {@code DONE} when another
     *     worker processed it meanwhile), or {@code null} if it is gone
     */
    @Transactional
    public String failed(String messageId, int attemptsRead, RuntimeException failure, int maxAttempts,
            Duration pollInterval) {
        ImportMessage message = entityManager.find(ImportMessage.class, messageId, LockModeType.PESSIMISTIC_WRITE);
        if (message == null) {
            return null;
        }
        if (ImportMessage.PENDING.equals(message.state()) && message.attempts() == attemptsRead) {
            message.failed(String.valueOf(failure), maxAttempts,
                    Instant.now().plus(waitAfter(pollInterval, message.attempts() + 1)));
        }
        return message.state();
    }

    /**
     * @param pollInterval the workers' poll interval
     * @param failures the failures so far, this one included
     * @return how long the message waits before its next attempt
     */
    static Duration waitAfter(Duration pollInterval, int failures) {
        Duration wait = pollInterval.multipliedBy(1L << Math.min(failures, 20));
        return wait.compareTo(LONGEST_WAIT) > 0 ? LONGEST_WAIT : wait;
    }
}
