package dev.idempotency.exceptions;

/**
 * An unauthenticated caller called a method that refuses anonymous callers
 * ({@code anonymous = REJECT}), or one whose tenant comes from the caller's credentials (a JWT
 * claim, a resolver) without any. Nothing was claimed or run. Over HTTP (when it reaches JAX-RS)
 * it is answered {@code 401} with problem type {@code authentication-required}.
 */
public class AuthenticationRequiredException extends IdempotencyException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message the coded message
     */
    public AuthenticationRequiredException(String message) {
        super(message);
    }
}
