package dev.idempotency.sample;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

import dev.idempotency.jpa.IdempotencyPersistence;

/**
 * Hands the app's own persistence unit to the JPA idempotency store, so that the payment rows and
 * the idempotency records live in one database and commit in one transaction.
 */
@ApplicationScoped
public class PaymentsPersistence {

    @Produces
    @IdempotencyPersistence
    @PersistenceContext(unitName = "payments")
    EntityManager entityManager;
}
