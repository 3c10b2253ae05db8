package dev.idempotency.sample;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/**
 * The sample's payments, in the {@code payment} table, and two in-memory counters for demos and
 * tests: how many times the handler ran, and how many attempts each order has seen.
 */
@ApplicationScoped
public class PaymentLedger {

    @PersistenceContext(unitName = "payments")
    EntityManager entityManager;

    private final AtomicLong executions = new AtomicLong();
    private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();

    /** Counts one execution of a handler. */
    public void countExecution() {
        executions.incrementAndGet();
    }

    /** @return how many times a handler ran since start */
    public long executions() {
        return executions.get();
    }

    /**
     * @param orderId an order
     * @return how many times a payment of it was attempted since start, this one included
     */
    public int attempt(String orderId) {
        return attempts.computeIfAbsent(String.valueOf(orderId), o -> new AtomicInteger()).incrementAndGet();
    }

    /**
     * Inserts a payment row now (flushed), in the caller's transaction.
     *
     * @param payment a new payment
     */
    public void add(Payment payment) {
        entityManager.persist(new PaymentEntity(payment, Instant.now()));
        entityManager.flush();
    }

    /**
     * @param id a payment id
     * @return the payment, if it exists
     */
    public Optional<Payment> find(String id) {
        return Optional.ofNullable(entityManager.find(PaymentEntity.class, id)).map(PaymentEntity::toPayment);
    }

    /**
     * @param orderId an order
     * @return the payments of that order, as rows in the database
     */
    public List<Payment> byOrder(String orderId) {
        return entityManager.createQuery("SELECT p FROM PaymentEntity p WHERE p.orderId = :orderId ORDER BY p.createdAt",
                        PaymentEntity.class)
                .setParameter("orderId", orderId)
                .getResultList().stream().map(PaymentEntity::toPayment).toList();
    }
}
