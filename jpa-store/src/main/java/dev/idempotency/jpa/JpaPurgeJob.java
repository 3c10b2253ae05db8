package dev.idempotency.jpa;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

import javax.naming.InitialContext;
import javax.naming.NamingException;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.ConfigProvider;

import dev.idempotency.spi.support.ConfigLookup;

/**
 * Deletes dead records on Jakarta Concurrency's default managed scheduled executor, every
 * {@code idempotency.jpa.purge.interval}: records past their retention (completed and executed
 * ones, and in-progress claims, which bind their key to their request until then), and claims
 * written without a retention (before claims recorded one) abandoned for longer than
 * {@code idempotency.jpa.purge.abandoned-after}, in batches, never a live one.
 * Every node may run it; the DELETE statements re-check their conditions, so nodes only share
 * the work.
 */
@ApplicationScoped
public class JpaPurgeJob {

    private static final Logger LOG = Logger.getLogger(JpaPurgeJob.class.getName());

    /** Bounds one run; the next run goes on where it stopped. */
    private static final int MAX_BATCHES_PER_RUN = 100;

    private static final String DEFAULT_SCHEDULER = "java:comp/DefaultManagedScheduledExecutorService";

    @Inject
    JtaRecordTransactions transactions;

    private PurgeSettings settings;
    private ScheduledFuture<?> schedule;

    void start(@Observes @Initialized(ApplicationScoped.class) Object started) {
        settings = PurgeSettings.load(ConfigLookup.of(ConfigProvider.getConfig()));
        if (!settings.enabled()) {
            LOG.info(JpaMessages.purgeDisabled(PurgeSettings.ENABLED));
            return;
        }
        JpaRecords records = new JpaRecords(transactions);
        long interval = settings.interval().toMillis();
        schedule = scheduler().scheduleWithFixedDelay(() -> run(records), interval, interval, TimeUnit.MILLISECONDS);
    }

    private void run(JpaRecords records) {
        try {
            int deleted = records.purge(settings.batchSize(), settings.abandonedAfter(), MAX_BATCHES_PER_RUN);
            if (deleted > 0) {
                LOG.fine(() -> JpaMessages.purged(deleted));
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, JpaMessages.purgeFailed(settings.interval()), e);
        }
    }

    /** Looked up, not injected: a {@code @Resource} in a library jar is not resolved the same way on every server. */
    private static ManagedScheduledExecutorService scheduler() {
        try {
            return (ManagedScheduledExecutorService) new InitialContext().lookup(DEFAULT_SCHEDULER);
        } catch (NamingException e) {
            throw new IllegalStateException(JpaMessages.purgeSchedulerMissing(DEFAULT_SCHEDULER, PurgeSettings.ENABLED), e);
        }
    }

    @PreDestroy
    void stop() {
        if (schedule != null) {
            schedule.cancel(false);
        }
    }
}
