package dev.idempotency.exceptions;

/**
 * A principal asked for more tokens than {@code idempotency.tokens.max-per-principal} within one
 * token ttl on this node. Over HTTP the token endpoint answers {@code 429} with problem type
 * {@code too-many-tokens} and {@code Retry-After}.
 */
public class TooManyTokensException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    /** @serial the seconds until the principal may be issued tokens again */
    private final long retryAfterSeconds;

    /**
     * @param message the coded message
     * @param retryAfterSeconds when the principal may ask again
     */
    public TooManyTokensException(String message, long retryAfterSeconds) {
        super(message);
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** @return the seconds until the principal may be issued tokens again */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
