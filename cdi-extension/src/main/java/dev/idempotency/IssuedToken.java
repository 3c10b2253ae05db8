package dev.idempotency;

import java.time.Instant;
import java.util.Objects;

/**
 * A token issued by {@link IdempotencyTokens}: the key a client sends, once, to an endpoint
 * whose {@link Idempotent#serverIssuedKeys()} is {@code true}.
 *
 * @param token 43 characters of base64url (256 random bits), valid as an {@code Idempotency-Key}
 * @param expiresAt when it stops being accepted for a first request, by this node's clock (the
 *     store judges it by its own; a retry of a request that used it still replays after that)
 */
public record IssuedToken(String token, Instant expiresAt) {

    /**
     * Checks the members.
     *
     * @param token the token, not null
     * @param expiresAt when it stops being accepted for a first request, not null
     */
    public IssuedToken {
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(expiresAt, "expiresAt");
    }
}
