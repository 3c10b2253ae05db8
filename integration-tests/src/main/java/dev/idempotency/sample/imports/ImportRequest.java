package dev.idempotency.sample.imports;

/**
 * A payment to import later, e.g. {@code {"orderId":"o-1","amount":1250,"currency":"EUR"}}; for
 * demos and tests {@code delayMs} makes its first processing attempt (in each JVM) that slow, and
 * {@code failAttempts} makes that many attempts fail (a poison message when it is above
 * {@code sample.imports.max-attempts}).
 */
public class ImportRequest {

    private String orderId;
    private long amount;
    private String currency;
    private long delayMs;
    private int failAttempts;

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

    public int getFailAttempts() {
        return failAttempts;
    }

    public void setFailAttempts(int failAttempts) {
        this.failAttempts = failAttempts;
    }
}
