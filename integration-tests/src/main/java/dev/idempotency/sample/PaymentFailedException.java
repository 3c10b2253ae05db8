package dev.idempotency.sample;

/** The payment provider failed after the payment row was written: the transaction rolls back. */
public class PaymentFailedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** @param orderId the order whose payment failed */
    public PaymentFailedException(String orderId) {
        super("the payment provider failed for order " + orderId);
    }
}
