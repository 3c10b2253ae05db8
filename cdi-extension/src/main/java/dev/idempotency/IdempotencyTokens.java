package dev.idempotency;

import java.security.Principal;

import dev.idempotency.exceptions.AnonymousTokenRequestException;
import dev.idempotency.exceptions.TooManyTokensException;
import dev.idempotency.spi.IdempotencyStoreException;

/**
 * Issues the server-side tokens that endpoints with {@link Idempotent#serverIssuedKeys()} require
 * as keys (the "fetch a token first, then use it once" strategy). Inject it where a page or a
 * form is rendered, or expose it with an {@link dev.idempotency.jaxrs.IdempotencyTokenResource}:
 *
 * <pre>{@code
 * @Inject IdempotencyTokens tokens;
 * ...
 * model.put("idempotencyKey", tokens.issue().token());
 * }</pre>
 *
 * <p>A token is a record in the configured store, kept for {@code idempotency.tokens.ttl}
 * (default 30 minutes) and bound to the principal it was issued to: another principal's request
 * with it is refused. Each node issues one principal at most
 * {@code idempotency.tokens.max-per-principal} tokens per token ttl.
 */
public interface IdempotencyTokens {

    /**
     * Issues a token to the current caller: inside a JAX-RS request, the caller of its JAX-RS
     * {@code SecurityContext}, taken as it is (as the token endpoint and {@code @Idempotent}
     * resource methods take it); in another HTTP request, the servlet request's user principal;
     * elsewhere, Jakarta Security's caller principal where the server offers it, else the CDI
     * {@code Principal}, never a user named like the server's unauthenticated caller; anonymous
     * when there is none.
     *
     * @return the token and when it expires
     * @throws AnonymousTokenRequestException for an anonymous caller, unless enabled
     * @throws TooManyTokensException when the caller has been issued too many tokens lately
     * @throws IdempotencyStoreException when the store cannot be reached
     */
    IssuedToken issue();

    /**
     * Issues a token to a principal.
     *
     * @param to the principal that will send it, or {@code null} for anonymous callers (any
     *     anonymous caller may then use it; only with {@code idempotency.tokens.anonymous=true})
     * @return the token and when it expires
     * @throws AnonymousTokenRequestException for an anonymous caller, unless enabled
     * @throws TooManyTokensException when the principal has been issued too many tokens lately
     * @throws IdempotencyStoreException when the store cannot be reached
     */
    IssuedToken issue(Principal to);
}
