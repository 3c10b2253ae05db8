package dev.idempotency.sample;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Convert;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;

/** A row of the {@code payment} table: one per executed payment. */
@Entity
@Table(name = "payment", indexes = @Index(name = "payment_order_idx", columnList = "order_id"))
public class PaymentEntity {

    @Id
    @Column(name = "id", length = 36)
    private String id;

    @Column(name = "order_id", nullable = false, length = 200)
    private String orderId;

    @Column(name = "amount", nullable = false)
    private long amount;

    @Column(name = "currency", nullable = false, length = 3)
    private String currency;

    @Column(name = "payer", nullable = false, length = 200)
    private String payer;

    @Column(name = "created_at", nullable = false)
    @Convert(converter = InstantColumn.class)
    private Instant createdAt;

    /** For JPA. */
    protected PaymentEntity() {
    }

    /**
     * @param payment the payment to keep
     * @param createdAt when it was made
     */
    public PaymentEntity(Payment payment, Instant createdAt) {
        this.id = payment.id();
        this.orderId = payment.orderId();
        this.amount = payment.amount();
        this.currency = payment.currency();
        this.payer = payment.payer();
        this.createdAt = createdAt;
    }

    /** @return the payment this row holds */
    public Payment toPayment() {
        return new Payment(id, orderId, amount, currency, payer);
    }
}
