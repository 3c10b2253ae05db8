package dev.idempotency.sample;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.enterprise.context.ApplicationScoped;

/** The sample's "database": payments by id, and how many times the handler ran. */
@ApplicationScoped
public class PaymentLedger {

    private final Map<String, Payment> payments = new ConcurrentHashMap<>();
    private final AtomicLong executions = new AtomicLong();

    /** Counts one execution of a handler. */
    public void countExecution() {
        executions.incrementAndGet();
    }

    /** @return how many times a handler ran since start */
    public long executions() {
        return executions.get();
    }

    /** @param payment a new payment to keep */
    public void add(Payment payment) {
        payments.put(payment.id(), payment);
    }

    /**
     * @param id a payment id
     * @return the payment, if it exists
     */
    public Optional<Payment> find(String id) {
        return Optional.ofNullable(payments.get(id));
    }
}
