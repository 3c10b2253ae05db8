package dev.idempotency.sample.imports;

import java.time.Instant;
import java.util.Objects;

import jakarta.persistence.Column;
import jakarta.persistence.Convert;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;
import jakarta.persistence.UniqueConstraint;

import dev.idempotency.sample.InstantColumn;

/**
 * A row of the local message table {@code import_message}: a payment import accepted at once and
 * processed later. Written in the request's transaction; the client's idempotency key is unique
 * per caller, a second line of defence behind the idempotency record.
 */
@Entity
@Table(name = "import_message",
        uniqueConstraints = @UniqueConstraint(name = "import_message_key", columnNames = {"payer", "idempotency_key"}),
        indexes = @Index(name = "import_message_pending", columnList = "state, next_attempt_at"))
public class ImportMessage {

    /** Waiting for a worker. */
    public static final String PENDING = "PENDING";
    /** Processed: its payment exists. */
    public static final String DONE = "DONE";
    /** Given up after {@code sample.imports.max-attempts} failed attempts: left for a person to look at. */
    public static final String FAILED = "FAILED";

    @Id
    @Column(name = "id", length = 36)
    private String id;

    @Column(name = "idempotency_key", nullable = false, length = 255)
    private String idempotencyKey;

    @Column(name = "payer", nullable = false, length = 200)
    private String payer;

    @Column(name = "order_id", nullable = false, length = 200)
    private String orderId;

    @Column(name = "amount", nullable = false)
    private long amount;

    @Column(name = "currency", nullable = false, length = 3)
    private String currency;

    /** Demo and test knob: how long the first processing attempt in this JVM takes. */
    @Column(name = "delay_ms", nullable = false)
    private long delayMs;

    /** Demo and test knob: how many processing attempts fail before one succeeds. */
    @Column(name = "fail_attempts", nullable = false)
    private int failAttempts;

    @Column(name = "state", nullable = false, length = 16)
    private String state;

    /** Failed processing attempts so far. */
    @Column(name = "attempts", nullable = false)
    private int attempts;

    /** When a worker may take it next: a failed message waits longer after each failure. */
    @Column(name = "next_attempt_at", nullable = false)
    @Convert(converter = InstantColumn.class)
    private Instant nextAttemptAt;

    /** Why the last attempt failed, shortened. */
    @Column(name = "last_error", length = 500)
    private String lastError;

    @Column(name = "payment_id", length = 36)
    private String paymentId;

    @Column(name = "created_at", nullable = false)
    @Convert(converter = InstantColumn.class)
    private Instant createdAt;

    @Column(name = "processed_at")
    @Convert(converter = InstantColumn.class)
    private Instant processedAt;

    /** For JPA. */
    protected ImportMessage() {
    }

    ImportMessage(String id, String idempotencyKey, String payer, ImportRequest request, Instant createdAt) {
        this.id = id;
        this.idempotencyKey = idempotencyKey;
        this.payer = payer;
        this.orderId = request.getOrderId();
        this.amount = request.getAmount();
        this.currency = request.getCurrency();
        this.delayMs = Math.max(0, request.getDelayMs());
        this.failAttempts = Math.max(0, request.getFailAttempts());
        this.state = PENDING;
        this.createdAt = createdAt;
        this.nextAttemptAt = createdAt;
    }

    /**
     * @param request an import request
     * @return whether it asks for this row's import: every field of the request, as this row keeps
     *     them (the library's own fingerprint, within the ttl, compares the body's bytes)
     */
    boolean isFor(ImportRequest request) {
        return Objects.equals(orderId, request.getOrderId()) && amount == request.getAmount()
                && Objects.equals(currency, request.getCurrency())
                && delayMs == Math.max(0, request.getDelayMs()) && failAttempts == Math.max(0, request.getFailAttempts());
    }

    public String id() {
        return id;
    }

    public String payer() {
        return payer;
    }

    public String orderId() {
        return orderId;
    }

    public long amount() {
        return amount;
    }

    public String currency() {
        return currency;
    }

    public long delayMs() {
        return delayMs;
    }

    public String state() {
        return state;
    }

    public String paymentId() {
        return paymentId;
    }

    public int attempts() {
        return attempts;
    }

    public Instant nextAttemptAt() {
        return nextAttemptAt;
    }

    public int failAttempts() {
        return failAttempts;
    }

    public String lastError() {
        return lastError;
    }

    /**
     * Counts a failed attempt: the message waits until {@code retryAt}, or is given up once it
     * failed {@code maxAttempts} times.
     */
    void failed(String error, int maxAttempts, Instant retryAt) {
        attempts++;
        lastError = error == null || error.length() <= 500 ? error : error.substring(0, 500);
        if (attempts >= maxAttempts) {
            state = FAILED;
        } else {
            nextAttemptAt = retryAt;
        }
    }

    void done(String paymentId, Instant when) {
        this.state = DONE;
        this.paymentId = paymentId;
        this.processedAt = when;
    }
}
