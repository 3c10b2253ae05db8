package dev.idempotency.jaxrs;

import jakarta.enterprise.inject.spi.CDI;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.CacheControl;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;

import dev.idempotency.IdempotencyTokens;
import dev.idempotency.IssuedToken;
import dev.idempotency.cdi.IdempotencyRuntime;
import dev.idempotency.exceptions.AnonymousTokenRequestException;
import dev.idempotency.exceptions.TooManyTokensException;
import dev.idempotency.jaxrs.internal.CrossSiteRequests;
import dev.idempotency.jaxrs.internal.ProblemResponses;
import dev.idempotency.spi.IdempotencyStoreException;

/**
 * The token endpoint of the "fetch a token first, then use it once" strategy. It is not a
 * resource until the application opts in by giving it a path, in one line:
 *
 * <pre>{@code
 * @Path("idempotency-tokens")
 * public class IdempotencyTokensEndpoint extends IdempotencyTokenResource {
 * }
 * }</pre>
 *
 * <p>{@code POST} issues a token to the authenticated caller (the same principal the
 * {@code Idempotency-Key} filter scopes keys by) and answers
 * {@code 201} with {@code {"token":"...","expiresAt":"...","header":"Idempotency-Key"}} and
 * {@code Cache-Control: no-store}; {@code 403 anonymous-token-request} to an unauthenticated caller
 * unless {@code idempotency.tokens.anonymous=true}; {@code 429 too-many-tokens} with {@code Retry-After} once the
 * caller was issued {@code idempotency.tokens.max-per-principal} tokens within the token ttl;
 * {@code 503 store-unavailable} when the store cannot keep it; {@code 403 cross-site-token-request},
 * before anything is issued or counted, to a request that a page of another origin made the
 * browser send (as {@code CrossSiteRequests} tells it from {@code Sec-Fetch-Site} and
 * {@code Origin}), unless its origin is listed in {@code idempotency.tokens.allowed-origins}: such
 * a page cannot read the token, but it could spend the caller's bound and have the caller's own
 * pages refused.
 */
public abstract class IdempotencyTokenResource {

    @Context
    SecurityContext security;

    @Context
    HttpHeaders headers;

    @Context
    UriInfo uri;

    /**
     * Issues a token to the caller.
     *
     * @return 201 with the token, 429 or 503 as problem details
     */
    @POST
    @Produces(MediaType.APPLICATION_JSON)
    public Response issue() {
        IdempotencyRuntime runtime = CDI.current().select(IdempotencyRuntime.class).get();
        if (CrossSiteRequests.fromAnotherSite(headers, uri.getRequestUri().getScheme(),
                runtime.settings().tokenAllowedOrigins())) {
            return ProblemResponses.of(IdempotencyProblem.CROSS_SITE_TOKEN_REQUEST, "This request was sent by a page of"
                    + " another site; tokens are issued to the application's own pages and to clients that are not"
                    + " browsers.");
        }
        IssuedToken issued;
        try {
            issued = CDI.current().select(IdempotencyTokens.class).get().issue(security.getUserPrincipal());
        } catch (AnonymousTokenRequestException e) {
            // The coded message names the setting for the server's log; the client gets the contract's detail.
            return ProblemResponses.of(IdempotencyProblem.ANONYMOUS_TOKEN_REQUEST,
                    IdempotencyExceptionMapper.ClientProblem.of(e).detail());
        } catch (TooManyTokensException e) {
            return ProblemResponses.retryable(IdempotencyProblem.TOO_MANY_TOKENS,
                    IdempotencyExceptionMapper.ClientProblem.of(e).detail(),
                    (int) Math.min(Integer.MAX_VALUE, e.retryAfterSeconds()));
        } catch (IdempotencyStoreException e) {
            return ProblemResponses.retryable(IdempotencyProblem.STORE_UNAVAILABLE,
                    "The idempotency store cannot be reached; no token was issued. Retry later.",
                    runtime.settings().retryAfterSeconds());
        }
        CacheControl noStore = new CacheControl();
        noStore.setNoStore(true);
        String body = "{\"token\":\"" + issued.token() + "\",\"expiresAt\":\"" + issued.expiresAt()
                + "\",\"header\":\"" + runtime.settings().keyHeader() + "\"}";
        return Response.status(Response.Status.CREATED).type(MediaType.APPLICATION_JSON_TYPE).cacheControl(noStore)
                .entity(body).build();
    }
}
