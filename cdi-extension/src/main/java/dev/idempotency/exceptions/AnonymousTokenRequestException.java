package dev.idempotency.exceptions;

/**
 * An unauthenticated caller asked for a token while {@code idempotency.tokens.anonymous} is
 * {@code false} (the default): every anonymous caller would share its tokens and its issuance
 * bound, so that one of them could use up the others'. Over HTTP the token endpoint answers
 * {@code 403} with problem type {@code anonymous-token-request}.
 */
public class AnonymousTokenRequestException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message the coded message
     */
    public AnonymousTokenRequestException(String message) {
        super(message);
    }
}
