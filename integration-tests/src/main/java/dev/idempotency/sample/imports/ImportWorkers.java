package dev.idempotency.sample.imports;

import java.time.Duration;
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

/**
 * Workers that drain the local message table: each pass reads PENDING messages and processes
 * them through {@link ImportProcessor}. Several workers (and nodes) read the same rows on
 * purpose; the idempotency key, not a lock, decides who processes a message. A worker that dies
 * mid-message leaves its claim to expire with its lease; another worker then finishes it.
 */
@ApplicationScoped
public class ImportWorkers {

    private static final Logger LOG = Logger.getLogger(ImportWorkers.class.getName());
    private static final int BATCH = 50;

    @Inject
    ImportProcessor processor;

    @Inject
    ImportActivity activity;

    @PersistenceContext(unitName = "payments")
    EntityManager entityManager;

    @Inject
    @ConfigProperty(name = "sample.imports.workers", defaultValue = "2")
    int workers;

    @Inject
    @ConfigProperty(name = "sample.imports.poll-interval", defaultValue = "PT0.5S")
    String pollInterval;

    private final List<Thread> running = new ArrayList<>();
    private volatile boolean stopped;

    /**
     * Starts the workers as long-running threads of the default managed thread factory (a
     * repeating task on the managed scheduled executor lost its context between runs on Payara
     * Micro when deployed after boot).
     */
    void start(@Observes @Initialized(ApplicationScoped.class) Object started) throws NamingException {
        long interval = Duration.parse(pollInterval).toMillis();
        ManagedThreadFactory threads = (ManagedThreadFactory) new InitialContext()
                .lookup("java:comp/DefaultManagedThreadFactory");
        for (int i = 0; i < workers; i++) {
            Thread worker = threads.newThread(() -> loop(interval));
            worker.setName("import-worker-" + i);
            running.add(worker);
            worker.start();
        }
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
        List<String> pending;
        try {
            pending = entityManager.createQuery("SELECT m.id FROM ImportMessage m WHERE m.state = :pending"
                    + " ORDER BY m.createdAt", String.class)
                    .setParameter("pending", ImportMessage.PENDING).setMaxResults(BATCH).getResultList();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "import workers: the message table could not be read", e);
            return;
        }
        for (String id : pending) {
            try {
                processor.process(id);
            } catch (IdempotencyConflictException e) {
                activity.skipped(); // another worker holds it; if that one died, its lease runs out
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                activity.failed();
                LOG.log(Level.WARNING, "import workers: message " + id + " failed; it is retried on a later pass", e);
            }
        }
    }

    @PreDestroy
    void stop() {
        stopped = true;
        running.forEach(Thread::interrupt);
    }
}
