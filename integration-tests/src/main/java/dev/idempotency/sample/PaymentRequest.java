package dev.idempotency.sample;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;

/**
 * A payment order, e.g. {@code {"orderId":"o-1","amount":1250,"currency":"EUR"}}. For demos and
 * tests, {@code delayMs} makes the handler sleep and {@code simulateStatus} makes it answer that
 * status instead of creating a payment; {@code failTimes} makes the first attempts of an order
 * fail after the payment row was inserted (the transaction rolls back), to show that neither the
 * row nor an idempotency record survives a failure. An order without an id or an ISO currency
 * code is refused with a 400 problem before the handler runs.
 */
public class PaymentRequest {

    @NotBlank
    @Size(max = 200)
    private String orderId;
    @PositiveOrZero
    private long amount;
    @NotNull
    @Pattern(regexp = "[A-Z]{3}")
    private String currency;
    private long delayMs;
    private Integer simulateStatus;
    private int failTimes;

    public String getOrderId() {
        return orderId;
    }

    public void setOrderId(String orderId) {
        this.orderId = orderId;
    }

    public long getAmount() {
        return amount;
    }

    public void setAmount(long amount) {
        this.amount = amount;
    }

    public String getCurrency() {
        return currency;
    }

    public void setCurrency(String currency) {
        this.currency = currency;
    }

    public long getDelayMs() {
        return delayMs;
    }

    public void setDelayMs(long delayMs) {
        this.delayMs = delayMs;
    }

    public Integer getSimulateStatus() {
        return simulateStatus;
    }

    public void setSimulateStatus(Integer simulateStatus) {
        this.simulateStatus = simulateStatus;
    }

    public int getFailTimes() {
        return failTimes;
    }

    public void setFailTimes(int failTimes) {
        this.failTimes = failTimes;
    }
}
