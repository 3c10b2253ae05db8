package dev.idempotency.jpa;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.annotation.sql.DataSourceDefinition;
import jakarta.annotation.sql.DataSourceDefinitions;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.AnnotatedField;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.ProcessProducerField;
import jakarta.enterprise.inject.spi.ProcessProducerMethod;
import jakarta.enterprise.inject.spi.WithAnnotations;
import jakarta.persistence.PersistenceContext;

import org.eclipse.microprofile.config.ConfigProvider;

import dev.idempotency.exceptions.IdempotencyDefinitionException;
import dev.idempotency.spi.support.ConfigLookup;

/**
 * Checks, once at deployment, the bound on the store's own transactions against the size of the
 * connection pool they draw from, where the application declares that pool itself: a
 * {@code @DataSourceDefinition} with a {@code maxPoolSize}, on a bean class, whose name is the
 * {@code jta-data-source} of the store's persistence unit: the unit of the application's
 * {@link IdempotencyPersistence} producer field ({@code @PersistenceContext(unitName = ...)}), or
 * the store's own unit {@code idempotency} when there is no producer. A bound at or above that
 * size fails the deployment ({@code IDEMP0512}, {@link PoolSizeCheck}). Not checked: a producer
 * method or a field without a unit name (the unit is not known before it runs), and a pool the
 * server defines (an admin console, {@code standalone.xml}, {@code server.xml}): size those as
 * docs/stores/jpa.md says.
 */
public class DeclaredDataSources implements Extension {

    private final Map<String, PoolSizeCheck.DeclaredPool> pools = new ConcurrentHashMap<>();
    /** The unit names of the application's {@link IdempotencyPersistence} producers; "" when one is not known. */
    private final Set<String> producedUnits = ConcurrentHashMap.newKeySet();

    <T> void collect(@Observes @WithAnnotations({DataSourceDefinition.class, DataSourceDefinitions.class})
            ProcessAnnotatedType<T> type) {
        Class<T> declaring = type.getAnnotatedType().getJavaClass();
        for (DataSourceDefinition definition : declaring.getAnnotationsByType(DataSourceDefinition.class)) {
            pools.put(definition.name(), new PoolSizeCheck.DeclaredPool(definition.name(), definition.maxPoolSize(),
                    declaring.getName()));
        }
    }

    <T, X> void producedUnit(@Observes ProcessProducerField<T, X> producer) {
        AnnotatedField<T> field = producer.getAnnotatedProducerField();
        if (field.isAnnotationPresent(IdempotencyPersistence.class)) {
            PersistenceContext context = field.getAnnotation(PersistenceContext.class);
            producedUnits.add(context == null ? "" : context.unitName());
        }
    }

    <T, X> void producedUnit(@Observes ProcessProducerMethod<T, X> producer) {
        if (producer.getAnnotatedProducerMethod().isAnnotationPresent(IdempotencyPersistence.class)) {
            producedUnits.add("");
        }
    }

    /**
     * @return the store's persistence unit: the unit of the application's
     *     {@link IdempotencyPersistence} producer field, this jar's own unit {@code idempotency}
     *     when there is no producer, or {@code ""} when it is not known (a producer method, a field
     *     without a unit name, several producers)
     */
    String storeUnit() {
        return producedUnits.isEmpty() ? PoolSizeCheck.OWN_UNIT
                : producedUnits.size() == 1 ? producedUnits.iterator().next() : "";
    }

    void check(@Observes AfterDeploymentValidation validation) {
        String unit = storeUnit();
        if (pools.isEmpty() || unit.isEmpty()) {
            return;
        }
        int bound;
        try {
            bound = SeparateRecordTransactions.maxOwnTransactions(ConfigLookup.of(ConfigProvider.getConfig()));
        } catch (IdempotencyDefinitionException invalid) {
            return; // IDEMP0510, reported when the store starts
        }
        ClassLoader application = Thread.currentThread().getContextClassLoader();
        String dataSource = PoolSizeCheck.persistenceUnitDataSources(application).get(unit);
        if (dataSource == null) {
            return;
        }
        PoolSizeCheck.problem(bound, pools.get(dataSource), unit)
                .ifPresent(problem -> validation.addDeploymentProblem(new IdempotencyDefinitionException(problem)));
    }
}
