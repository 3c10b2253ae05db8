package dev.idempotency.jpa;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import jakarta.inject.Qualifier;

/**
 * Qualifies the {@code EntityManager} the JPA store should use instead of its own persistence
 * unit (which runs on the server's default datasource). Produce one from your own persistence
 * unit, which must list {@link IdempotencyRecordEntity}:
 *
 * <pre>{@code
 * @ApplicationScoped
 * public class IdempotencyStorage {
 *     @Produces @IdempotencyPersistence
 *     @PersistenceContext(unitName = "payments")
 *     EntityManager entityManager;
 * }
 * }</pre>
 *
 * With the business data in the same database and persistence unit, the idempotency records
 * commit in the same JTA transactions as the business rows. The store flushes your pending
 * changes before its own statement in your transaction (marking the work executed): a failure of
 * your rows there (a unique or not-null violation) comes out as your provider's
 * {@code PersistenceException}, as it would from your own flush, not as a store outage.
 */
@Qualifier
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE})
public @interface IdempotencyPersistence {
}
