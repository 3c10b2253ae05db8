package dev.idempotency.sample;

/**
 * A payment order, e.g. {@code {"orderId":"o-1","amount":1250,"currency":"EUR"}}. For demos and
 * tests, {@code delayMs} makes the handler sleep and {@code simulateStatus} makes it answer that
 * status instead of creating a payment; {@code failTimes} makes the first attempts of an order
 * fail after the payment row was inserted (the transaction rolls back), to show that neither the
 * row nor an idempotency record survives a failure.
 */
public class PaymentRequest {

    private String orderId;
    private long amount;
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
