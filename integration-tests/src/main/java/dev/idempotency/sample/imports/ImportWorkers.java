package dev.idempotency.sample.imports;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

import javax.naming.InitialContext;
import javax.naming.NamingException;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import dev.idempotency.exceptions.IdempotencyConflictException;
import dev.idempotency.spi.IdempotencyStoreException;

/**
 * Workers that drain the local message table: each pass reads PENDING messages that are due and
 * processes them through {@link ImportProcessor}. Several workers (and nodes) read the same rows
 * on purpose; the idempotency key, not a lock, decides who processes a message. A worker that dies
 * mid-message leaves its claim to expire with its lease; another worker then finishes it. A
 * message whose processing fails waits longer after each failure and is given up after
 * {@code sample.imports.max-attempts} ({@link ImportFailures}). The settings are checked when the
 * application starts: a bad one fails the deployment, naming the key, the value and what is
 * allowed.
 */
@ApplicationScoped
public class ImportWorkers {

    private static final Logger LOG = Logger.getLogger(ImportWorkers.class.getName());
    private static final int BATCH = 50;

    @Inject
    ImportProcessor processor;

    @Inject
    ImportActivity activity;

    @Inject
    ImportFailures failures;

    @PersistenceContext(unitName = "payments")
    EntityManager entityManager;

    @Inject
    @ConfigProperty(name = "sample.imports.workers", defaultValue = "2")
    int workers;

    @Inject
    @ConfigProperty(name = "sample.imports.poll-interval", defaultValue = "PT0.5S")
    String pollInterval;

    @Inject
    @ConfigProperty(name = "sample.imports.max-attempts", defaultValue = "5")
    int maxAttempts;

    private Duration interval;

    private final List<Thread> running = new ArrayList<>();
    private volatile boolean stopped;

    /**
     * Starts the workers as long-running threads of the default managed thread factory (a
     * repeating task on the managed scheduled executor lost its context between runs on Payara
     * Micro when deployed after boot).
     */
    void start(@Observes @Initialized(ApplicationScoped.class) Object started) throws NamingException {
        interval = checkedSettings();
        ManagedThreadFactory threads = (ManagedThreadFactory) new InitialContext()
                .lookup("java:comp/DefaultManagedThreadFactory");
        for (int i = 0; i < workers; i++) {
            Thread worker = threads.newThread(() -> loop(interval.toMillis()));
            worker.setName("import-worker-" + i);
            running.add(worker);
            worker.start();
        }
    }

    /** @return the poll interval, once every setting was found valid */
    private Duration checkedSettings() {
        if (workers < 0 || workers > 64) {
            throw new IllegalArgumentException("sample.imports.workers=" + workers + ": allowed are 0 (no workers on"
                    + " this node) to 64");
        }
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("sample.imports.max-attempts=" + maxAttempts + ": allowed is 1 or more"
                    + " (the failed attempts after which a message is given up)");
        }
        Duration parsed;
        try {
            parsed = Duration.parse(pollInterval);
        } catch (DateTimeParseException e) {
            parsed = null;
        }
        if (parsed == null || parsed.isNegative() || parsed.toMillis() < 1 || parsed.compareTo(Duration.ofMinutes(1)) > 0) {
            throw new IllegalArgumentException("sample.imports.poll-interval=" + pollInterval + ": allowed is an"
                    + " ISO-8601 duration from PT0.001S to PT1M, e.g. PT0.5S");
        }
        return parsed;
    }

    private void loop(long intervalMillis) {
        while (!stopped) {
            pass();
            try {
                Thread.sleep(intervalMillis);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    void pass() {
        List<Object[]> due;
        try {
            // due messages only, the longest waiting first: one that keeps failing waits longer
            // each time, and so never holds the head of the table against newer ones
            due = entityManager.createQuery("SELECT m.id, m.attempts FROM ImportMessage m WHERE m.state = :pending"
                    + " AND m.nextAttemptAt <= :now ORDER BY m.nextAttemptAt", Object[].class)
                    .setParameter("pending", ImportMessage.PENDING).setParameter("now", Instant.now())
                    .setMaxResults(BATCH).getResultList();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "import workers: the message table could not be read", e);
            return;
        }
        for (Object[] row : due) {
            String id = (String) row[0];
            try {
                processor.process(id);
            } catch (IdempotencyConflictException | ImportProcessor.NotDue e) {
                activity.skipped(); // another worker holds it, or its last attempt failed meanwhile
            } catch (IdempotencyStoreException e) {
                // the idempotency store failed, not the message: nothing ran, nothing to count
                LOG.log(Level.WARNING, "import workers: the idempotency store failed; message " + id
                        + " is tried again on a later pass", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                activity.failed();
                countFailure(id, ((Number) row[1]).intValue(), e);
            }
        }
    }

    private void countFailure(String id, int attemptsRead, RuntimeException failure) {
        String state;
        try {
            state = failures.failed(id, attemptsRead, failure, maxAttempts, interval);
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
            LOG.log(Level.WARNING, "import workers: message " + id + " failed, and its failure could not be counted;"
                    + " it is retried on a later pass", failure);
            return;
        }
        if (ImportMessage.FAILED.equals(state)) {
            activity.settled(id);
            LOG.log(Level.SEVERE, "import workers: message " + id + " failed " + maxAttempts + " times and is given up"
                    + " (state FAILED, its last error kept in import_message.last_error)", failure);
        } else {
            LOG.log(Level.WARNING, "import workers: message " + id + " failed; it is retried later", failure);
        }
    }

    @PreDestroy
    void stop() {
        stopped = true;
        running.forEach(Thread::interrupt);
    }
}
