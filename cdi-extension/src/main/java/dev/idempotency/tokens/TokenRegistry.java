package dev.idempotency.tokens;

import java.security.Principal;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;

import dev.idempotency.IssuedToken;
import dev.idempotency.claim.ScopedKey;
import dev.idempotency.exceptions.AnonymousTokenRequestException;
import dev.idempotency.exceptions.TooManyTokensException;
import dev.idempotency.internal.Messages;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;

/**
 * Server-issued tokens, kept in the configured store through the ordinary SPI: issuing one
 * claims and completes a record under {@link ScopedKey#ofIssuedToken} (retained for the token
 * ttl); checking one reads it. So every store, tiered included, keeps tokens with no code of its
 * own, and tokens are shared by every node that shares the store.
 */
public final class TokenRegistry {

    /** The length of a token: 256 random bits in base64url without padding. */
    public static final int TOKEN_LENGTH = 43;

    /** The fingerprint of token records: no request fingerprint (a base64url SHA-256) can equal it. */
    static final String TOKEN_FINGERPRINT = "server-issued-token";

    private static final StoredOutcome ISSUED = StoredOutcome.of(204, Map.of(), new byte[0]);
    private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

    private final IdempotencyStore store;
    private final Duration ttl;
    private final int maxPerPrincipal;
    private final boolean anonymousCallers;
    private final TokenIssuanceLimiter limiter;
    private final SecureRandom random = new SecureRandom();

    /**
     * @param store where tokens are kept
     * @param ttl how long a token is valid
     * @param maxPerPrincipal how many tokens one principal is issued per ttl on this node
     * @param anonymousCallers whether unauthenticated callers are issued tokens (all of them share
     *     one bound and each other's tokens)
     */
    public TokenRegistry(IdempotencyStore store, Duration ttl, int maxPerPrincipal, boolean anonymousCallers) {
        this.store = store;
        this.ttl = ttl;
        this.maxPerPrincipal = maxPerPrincipal;
        this.anonymousCallers = anonymousCallers;
        this.limiter = new TokenIssuanceLimiter(maxPerPrincipal, ttl, System::nanoTime);
    }

    /**
     * @param principal the principal that will use it, or {@code null} for anonymous callers
     * @return a new token
     * @throws AnonymousTokenRequestException when the caller is anonymous and anonymous callers
     *     get no tokens
     * @throws TooManyTokensException when the principal was issued its maximum within the ttl
     * @throws IdempotencyStoreException when the store cannot keep it
     */
    public IssuedToken issue(Principal principal) {
        if (!anonymousCallers && ScopedKey.isAnonymous(principal)) {
            throw new AnonymousTokenRequestException(Messages.anonymousTokenRequest());
        }
        TokenIssuanceLimiter.Permit permit = limiter.admit(ScopedKey.principalName(principal));
        if (permit.waitSeconds() > 0) {
            throw new TooManyTokensException(Messages.tooManyTokens(maxPerPrincipal, ttl), permit.waitSeconds());
        }
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        String token = BASE64URL.encodeToString(bytes);
        String key = ScopedKey.ofIssuedToken(principal, token);
        String owner = null;
        try {
            ClaimResult claim = store.claim(key, TOKEN_FINGERPRINT, ttl);
            owner = claim instanceof ClaimResult.Acquired acquired ? acquired.owner() : null;
            if (owner == null || !store.complete(key, owner, ISSUED, ttl)) {
                // 256 random bits do not collide; a store that answers so is broken.
                throw new IdempotencyStoreException(Messages.tokenNotKept(ScopedKey.forLog(key)));
            }
        } catch (RuntimeException notKept) {
            limiter.giveBack(permit); // never issued: it does not count
            giveBackClaim(key, owner);
            throw notKept;
        }
        return new IssuedToken(token, Instant.now().plus(ttl));
    }

    /**
     * Gives back the claim of a token that was not issued (its completion failed), so that it does
     * not hold a place in the store for the token's ttl; the store's failure is the caller's answer.
     */
    private void giveBackClaim(String key, String owner) {
        if (owner == null) {
            return;
        }
        try {
            store.release(key, owner);
        } catch (RuntimeException stillDown) {
            // it lapses with its lease (the token ttl); nobody holds the key
        }
    }

    /**
     * @param principal the caller, or {@code null} when anonymous
     * @param token the key the caller sent
     * @return whether it is a live token issued to that caller
     * @throws IdempotencyStoreException when the store cannot answer
     */
    public boolean isIssued(Principal principal, String token) {
        return store.find(ScopedKey.ofIssuedToken(principal, token))
                .filter(TokenRegistry::isTokenRecord)
                .isPresent();
    }

    /**
     * Lets the first call with a key on a method that requires server-issued keys run only if the
     * key is a live token issued to the caller; otherwise the claim is given back.
     *
     * @param principal the caller, or {@code null} when anonymous
     * @param token the key the caller sent
     * @param giveBack gives the claim on the key back: run when the token is not issued, or the
     *     store cannot tell
     * @return whether the call may run
     * @throws IdempotencyStoreException (or another runtime exception of the store) when the store
     *     cannot answer; the claim was given back
     */
    public boolean admit(Principal principal, String token, Runnable giveBack) {
        boolean issued;
        try {
            issued = isIssued(principal, token);
        } catch (RuntimeException e) {
            giveBack.run();
            throw e;
        }
        if (!issued) {
            giveBack.run();
        }
        return issued;
    }

    private static boolean isTokenRecord(IdempotencyRecord record) {
        return record.state() == RecordState.COMPLETED && TOKEN_FINGERPRINT.equals(record.fingerprint());
    }
}
