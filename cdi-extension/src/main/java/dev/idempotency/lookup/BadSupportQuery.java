package dev.idempotency.lookup;

/** A support question that points at no record: the detail says what to change. */
public final class BadSupportQuery extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** @param detail what is wrong and what to send, never a key */
    public BadSupportQuery(String detail) {
        super(detail);
    }
}
