package dev.idempotency.cdi;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
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
 * (then the extension added {@link MicroProfileMetricsCounters} as a bean), and the OpenTelemetry
 * reporter when the server has the OpenTelemetry API and {@code idempotency.telemetry.enabled} is not
 * {@code false} ({@link OpenTelemetryOutcomes}).
 */
final class EventListeners {

    private static final Logger LOG = Logger.getLogger(EventListeners.class.getName());
    private static final String METRIC_REGISTRY = "org.eclipse.microprofile.metrics.MetricRegistry";
    private static final String OPEN_TELEMETRY = "io.opentelemetry.api.OpenTelemetry";

    /**
     * @return whether the server has the MicroProfile Metrics API, so that the counters can be
     *     added as a bean
     */
    static boolean metricsApiPresent() {
        return present(METRIC_REGISTRY,
                () -> Messages.metricsUnavailable("the MicroProfile Metrics API is not on the class path"));
    }

    /**
     * @return whether the server gives the application the OpenTelemetry API (MicroProfile
     *     Telemetry), so that {@link OpenTelemetryOutcomes} can be added as a bean
     */
    static boolean telemetryApiPresent() {
        return present(OPEN_TELEMETRY, () -> Messages.telemetryUnavailable("the OpenTelemetry API is not on the class path"));
    }

    private static boolean present(String type, Supplier<String> absent) {
        try {
            Class.forName(type, false, EventListeners.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            LOG.fine(absent);
            return false;
        }
    }

    private EventListeners() {
    }

    /** A listener that reaches its API through a bean of the server's, once, at start. */
    interface ConnectedListener extends Consumer<IdempotencyEvent> {
        /** @return whether the server's bean could be obtained (else the listener stays out) */
        boolean connect();
    }

    /**
     * @return the OpenTelemetry reporter, connected to the application's {@code OpenTelemetry}; empty
     *     (and logged why) when there is none
     */
    static Optional<OpenTelemetryOutcomes> telemetry(BeanManager beanManager) {
        return connected(beanManager, OpenTelemetryOutcomes.class, "OpenTelemetry", Messages::telemetryUnavailable);
    }

    private static <T extends ConnectedListener> Optional<T> connected(BeanManager beanManager, Class<T> type, String bean,
            Function<String, String> unavailable) {
        try {
            T listener = beanManager.createInstance().select(type).get();
            if (listener.connect()) {
                return Optional.of(listener);
            }
            LOG.info(unavailable.apply("no " + bean + " bean is resolvable"));
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.INFO, unavailable.apply("the " + bean + " could not be obtained"), e);
        }
        return Optional.empty();
    }

    /**
     * @param beanManager the application's bean manager
     * @param metrics whether the extension added the metrics counters as a bean
     * @param telemetry the OpenTelemetry reporter, connected, where there is one
     * @return the listeners found
     */
    static EventPublisher resolve(BeanManager beanManager, boolean metrics, Optional<OpenTelemetryOutcomes> telemetry) {
        List<Consumer<IdempotencyEvent>> listeners = new ArrayList<>();
        Set<ObserverMethod<? super IdempotencyEvent>> observers = beanManager.resolveObserverMethods(
                new IdempotencyEvent(IdempotencyOutcome.CLAIMED, "", "", false));
        Event<IdempotencyEvent> event = beanManager.getEvent().select(IdempotencyEvent.class);
        if (observers.stream().anyMatch(o -> !o.isAsync())) {
            listeners.add(event::fire);
        }
        if (observers.stream().anyMatch(ObserverMethod::isAsync)) {
            listeners.add(e -> event.fireAsync(e).exceptionally(failure -> {
                EventPublisher.listenerFailed(e.outcome(), failure);
                return null;
            }));
        }
        if (metrics) {
            connected(beanManager, MicroProfileMetricsCounters.class, "MetricRegistry", Messages::metricsUnavailable)
                    .ifPresent(listeners::add);
        }
        telemetry.ifPresent(listeners::add);
        return new EventPublisher(listeners);
    }
}
