package dev.idempotency.jpa;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.annotation.sql.DataSourceDefinition;
import jakarta.annotation.sql.DataSourceDefinitions;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.WithAnnotations;

import org.eclipse.microprofile.config.ConfigProvider;

import dev.idempotency.IdempotencyDefinitionException;
import dev.idempotency.spi.support.ConfigLookup;

/**
 * Checks, once at deployment, the bound on the store's own transactions against the size of the
 * connection pool they draw from, where the application declares that pool itself: a
 * {@code @DataSourceDefinition} with a {@code maxPoolSize}, on a class of a bean archive, whose
 * name is the {@code jta-data-source} (or {@code non-jta-data-source}) of a persistence unit of
 * the application. A bound at or above that size fails the deployment ({@code IDEMP0512},
 * {@link PoolSizeCheck}). A pool the server defines (an admin console, {@code standalone.xml},
 * {@code server.xml}) cannot be read portably and is not checked: size it as the README says.
 */
public class DeclaredDataSources implements Extension {

    private final Map<String, PoolSizeCheck.DeclaredPool> pools = new ConcurrentHashMap<>();

    <T> void collect(@Observes @WithAnnotations({DataSourceDefinition.class, DataSourceDefinitions.class})
            ProcessAnnotatedType<T> type) {
        Class<T> declaring = type.getAnnotatedType().getJavaClass();
        for (DataSourceDefinition definition : declaring.getAnnotationsByType(DataSourceDefinition.class)) {
            pools.put(definition.name(), new PoolSizeCheck.DeclaredPool(definition.name(), definition.maxPoolSize(),
                    declaring.getName()));
        }
    }

    void check(@Observes AfterDeploymentValidation validation) {
        if (pools.isEmpty()) {
            return;
        }
        int bound;
        try {
            bound = SeparateRecordTransactions.maxOwnTransactions(ConfigLookup.of(ConfigProvider.getConfig()));
        } catch (IdempotencyDefinitionException invalid) {
            return; // IDEMP0510, reported when the store starts
        }
        ClassLoader application = Thread.currentThread().getContextClassLoader();
        PoolSizeCheck.problem(bound, pools.values(), PoolSizeCheck.persistenceUnitDataSources(application))
                .ifPresent(problem -> validation.addDeploymentProblem(new IdempotencyDefinitionException(problem)));
    }
}
