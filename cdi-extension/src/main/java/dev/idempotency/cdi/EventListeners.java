package dev.idempotency.cdi;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.ObserverMethod;

import dev.idempotency.IdempotencyEvent;
import dev.idempotency.IdempotencyOutcome;
import dev.idempotency.claim.EventPublisher;
import dev.idempotency.internal.Messages;

/**
 * Decides once, at start, who hears about outcomes: the application's observers of
 * {@link IdempotencyEvent} (synchronous and asynchronous, found through
 * {@link BeanManager#resolveObserverMethods}) and the MicroProfile Metrics counters when the
 * server has MicroProfile Metrics and {@code idempotency.metrics.enabled} is not {@code false}
 * (then the extension added {@link MicroProfileMetricsCounters} as a bean).
 */
final class EventListeners {

    private static final Logger LOG = Logger.getLogger(EventListeners.class.getName());
    private static final String METRIC_REGISTRY = "org.eclipse.microprofile.metrics.MetricRegistry";

    /**
     * @return whether the server has the MicroProfile Metrics API, so that the counters can be
     *     added as a bean
     */
    static boolean metricsApiPresent() {
        try {
            Class.forName(METRIC_REGISTRY, false, EventListeners.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            LOG.fine(() -> Messages.metricsUnavailable("the MicroProfile Metrics API is not on the class path"));
            return false;
        }
    }

    private EventListeners() {
    }

    /**
     * @param beanManager the application's bean manager
     * @param metrics whether the extension added the metrics counters as a bean
     * @return the listeners found
     */
    static EventPublisher resolve(BeanManager beanManager, boolean metrics) {
        List<Consumer<IdempotencyEvent>> listeners = new ArrayList<>();
        Set<ObserverMethod<? super IdempotencyEvent>> observers = beanManager.resolveObserverMethods(
                new IdempotencyEvent(IdempotencyOutcome.CLAIMED, "", "", false));
        Event<IdempotencyEvent> event = beanManager.getEvent().select(IdempotencyEvent.class);
        if (observers.stream().anyMatch(o -> !o.isAsync())) {
            listeners.add(event::fire);
        }
        if (observers.stream().anyMatch(ObserverMethod::isAsync)) {
            listeners.add(e -> event.fireAsync(e).exceptionally(failure -> {
                LOG.log(Level.WARNING, Messages.listenerFailed(e.outcome().name()), failure);
                return null;
            }));
        }
        if (metrics) {
            try {
                MicroProfileMetricsCounters counters = beanManager.createInstance()
                        .select(MicroProfileMetricsCounters.class).get();
                if (counters.connect()) {
                    listeners.add(counters);
                } else {
                    LOG.info(Messages.metricsUnavailable("no MetricRegistry bean is resolvable"));
                }
            } catch (RuntimeException | LinkageError e) {
                LOG.log(Level.INFO, Messages.metricsUnavailable("the MetricRegistry could not be obtained"), e);
            }
        }
        return new EventPublisher(listeners);
    }
}
