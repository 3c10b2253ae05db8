package dev.idempotency.jaxrs.internal;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.security.Principal;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;

import dev.idempotency.IdempotencyOutcome;
import dev.idempotency.claim.ClaimFailures;
import dev.idempotency.claim.EventPublisher;
import dev.idempotency.claim.HttpClaim;
import dev.idempotency.claim.InProgressWaits;
import dev.idempotency.claim.KeySpace;
import dev.idempotency.claim.OwnedClaim;
import dev.idempotency.claim.ReleaseRetries;
import dev.idempotency.claim.RetryOutcomes;
import dev.idempotency.claim.TenantLookup;
import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.config.LibrarySettings;
import dev.idempotency.config.TenantSource;
import dev.idempotency.jaxrs.IdempotencyProblem;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.store.ReplayCache;
import dev.idempotency.tokens.TokenRegistry;

/**
 * The request side of the contract: refuses an anonymous caller where the endpoint wants an
 * authenticated one, reads the key (from its header, or from the JSON body), finds the request's
 * key space (its caller and tenant), fingerprints the request as the endpoint says, claims the key,
 * and either lets the request through (new key), or answers it at once: replay, 409, 422, 400,
 * 401, 413 or 503; where the endpoint says {@code inProgress = WAIT}, a duplicate of a request in
 * flight first waits for its outcome ({@link InProgressWaits}). Nothing is executed unless the claim was acquired. Everything the endpoint's
 * definition decides (the key's header or pointer, the fingerprint mode, the JSON-P parser, the
 * tenant source) is set up in the constructor, once.
 */
public final class IdempotencyKeyFilter implements ContainerRequestFilter {

    private final IdempotencyStore store;
    private final AdmittedClaims claims;
    private final LibrarySettings settings;
    private final RequestKeys keys;
    private final RequestFingerprinter fingerprinter;
    /** The server's JSON-P, looked up once where keys or fingerprints read JSON bodies; else {@code null}. */
    private final JsonBodies jsonBodies;
    /** Whether the fingerprint or the key reads the body (decoded, where it was compressed). */
    private final boolean readsBody;
    private final HttpEndpoint endpoint;
    private final IdempotencyPolicy policy;
    private final ReplayCache replayCache;
    private final EventPublisher events;
    private final TokenRegistry tokens;
    private final TenantLookup tenants;
    private final InProgressWaits waits;
    private final ReleaseRetries retries;
    private final String missingTenant;
    /** The 422 answer's detail: what the fingerprint covers, under the key's name. */
    private final String keyReused;

    /**
     * @param services what the HTTP side works with
     * @param endpoint the resource method this filter guards
     */
    public IdempotencyKeyFilter(HttpServices services, HttpEndpoint endpoint) {
        this.store = services.store();
        this.claims = services.claims();
        this.settings = services.settings();
        this.endpoint = endpoint;
        this.policy = endpoint.policy();
        this.keys = new RequestKeys(policy.keySource(), settings.keyHeader(), settings.maxKeyLength());
        this.fingerprinter = new RequestFingerprinter(policy.fingerprint());
        this.jsonBodies = keys.fromBody() || fingerprinter.readsJson() ? new JsonBodies() : null;
        this.readsBody = jsonBodies != null || fingerprinter.readsBody();
        this.keyReused = "Idempotency-Key".equals(keys.name()) && fingerprinter.coversWholeBody()
                ? "This Idempotency-Key was used with a different request (body, method, path or query)."
                : "This " + keys.name() + " was used with a different request (" + fingerprinter.covered() + ").";
        this.replayCache = services.replayCache();
        this.events = services.events();
        this.tokens = services.tokens();
        this.tenants = services.tenants();
        this.waits = services.waits();
        this.retries = services.retries();
        this.missingTenant = "This endpoint's idempotency keys are scoped by tenant, and the request names none"
                + (settings.tenantSource() == TenantSource.HEADER ? " (send one " + settings.tenantHeader() + " header)" : "")
                + "; nothing was executed.";
    }

    @Override
    public void filter(ContainerRequestContext request) throws IOException {
        Principal principal = request.getSecurityContext().getUserPrincipal();
        if (KeySpace.rejectsAsAnonymous(policy, principal)) {
            request.abortWith(unauthorized());
            return;
        }
        RequestKeys.Read key = keys.fromBody() ? null : keys.fromHeader(request.getHeaders().get(keys.header()));
        if (key != null && !admissible(request, key)) {
            return;
        }
        // A key from a header: the key space is known before the body is read.
        KeySpace space = key == null ? null : keySpace(request, principal);
        if (key != null && space == null) {
            return;
        }
        RequestBody body;
        try {
            body = RequestBody.read(request.getEntityStream(),
                    RequestBody.declaredLength(request.getHeaderString(HttpHeaders.CONTENT_LENGTH)), settings.maxRequestBodySize());
        } catch (RequestBody.TooLargeException e) {
            request.abortWith(ProblemResponses.of(IdempotencyProblem.REQUEST_TOO_LARGE,
                    "Idempotent requests may have at most " + settings.maxRequestBodySize() + " bytes of body."));
            return;
        } catch (IOException e) {
            if (RequestBody.refusedAsTooLarge(e)) {
                // the server's own limit, below the library's (WildFly's max-post-size): sent again, refused again
                request.abortWith(ProblemResponses.of(IdempotencyProblem.REQUEST_TOO_LARGE,
                        "The server does not take a request body this large; nothing was executed."));
                return;
            }
            // Nothing is claimed yet: a truncated or broken body is the client's error, not a 500.
            request.abortWith(ProblemResponses.of(IdempotencyProblem.UNREADABLE_BODY,
                    "The request body could not be read completely; nothing was executed."));
            return;
        }
        request.setEntityStream(new ByteArrayInputStream(body.bytes(), 0, body.length()));
        if (readsBody) {
            try {
                body = body.decoded(request.getHeaderString(HttpHeaders.CONTENT_ENCODING), settings.maxRequestBodySize(),
                        settings.maxDecodedBodyExpansion());
            } catch (RequestBody.TooLargeException e) {
                request.abortWith(ProblemResponses.of(IdempotencyProblem.REQUEST_TOO_LARGE, "Idempotent requests may have"
                        + " at most " + settings.maxRequestBodySize() + " bytes of body, decoded"
                        + (settings.maxDecodedBodyExpansion() == 0 ? "." : ", and a compressed body may decode to at most "
                                + RequestBody.SMALLEST_DECODED_BOUND + " bytes or " + settings.maxDecodedBodyExpansion()
                                + " times its size (a body within the first bound may be sent uncompressed).")));
                return;
            }
        }
        JsonBodies.Parsed json = jsonBodies == null ? null : jsonBodies.of(body);
        if (key == null) {
            key = keys.fromBody(json, request.getHeaderString(HttpHeaders.CONTENT_TYPE), policy.required());
            if (!admissible(request, key)) {
                return;
            }
            space = keySpace(request, principal);
            if (space == null) {
                return;
            }
        }

        URI uri = request.getUriInfo().getRequestUri();
        String fingerprint = fingerprinter.of(request.getMethod(), uri.getRawPath(), uri.getRawQuery(), body,
                request.getHeaderString(HttpHeaders.CONTENT_TYPE), json);
        if (fingerprint == null) {
            request.abortWith(ProblemResponses.of(IdempotencyProblem.UNREADABLE_BODY,
                    "This endpoint takes JSON, and the request body is not JSON; nothing was executed."));
            return;
        }
        String scopedKey = space.key(policy, key.key());
        IdempotencyRecord completed = replayCache.find(scopedKey);
        if (completed != null) {
            request.abortWith(answerFrom(completed, fingerprint, scopedKey));
            return;
        }
        ClaimResult claim;
        try {
            claim = retries.claimedAgain(store, policy, scopedKey, fingerprint,
                    store.claim(scopedKey, fingerprint, policy.lease(), policy.ttl()));
        } catch (RuntimeException e) {
            Response unavailable = storeFailed(scopedKey, policy.failOpen(), e);
            if (!policy.failOpen()) {
                request.abortWith(unavailable);
            }
            return;
        }
        claim = waits.afterClaim(store, policy, scopedKey, fingerprint, claim);
        if (claim instanceof ClaimResult.Acquired acquired) {
            if (policy.serverIssuedKeys() && !tokenIssued(request, principal, key.key(), scopedKey, acquired.owner())) {
                return;
            }
            HttpClaim admitted = new HttpClaim(store, policy, endpoint.resourceClass(), endpoint.method(), endpoint.async(), scopedKey,
                    acquired.owner(), events, waits, retries);
            events.fire(IdempotencyOutcome.CLAIMED, policy, scopedKey, true);
            claims.admit(request, admitted);
            return;
        }
        IdempotencyRecord existing = ((ClaimResult.Existing) claim).record();
        replayCache.remember(existing, policy.ttl());
        request.abortWith(answerFrom(existing, fingerprint, scopedKey));
    }

    /**
     * @return the request's key space (its caller and tenant), or {@code null} when the request was
     *     refused for want of one ({@code 400} missing tenant, {@code 401} where credentials must say it)
     */
    private KeySpace keySpace(ContainerRequestContext request, Principal principal) {
        KeySpace space = KeySpace.of(policy, tenants, new HttpScopeRequest(request, policy.endpoint(), principal));
        if (space.admitted()) {
            return space;
        }
        request.abortWith(space.refusal() == KeySpace.Refusal.AUTHENTICATION_REQUIRED ? unauthorized()
                : ProblemResponses.of(IdempotencyProblem.MISSING_TENANT, missingTenant));
        return null;
    }

    /**
     * @return whether the request goes on with the key read: not when it has none (answered
     *     {@code 400} where a key is required, let through unclaimed elsewhere) or a malformed one
     */
    private boolean admissible(ContainerRequestContext request, RequestKeys.Read key) {
        if (key.key() != null) {
            return true;
        }
        if (!key.missing() || policy.required()) {
            request.abortWith(ProblemResponses.of(key.problem(), key.detail()));
        }
        return false;
    }

    /**
     * The first request with a key on an endpoint that requires server-issued keys runs only if
     * the key is a live token issued to this caller; otherwise the claim is given back and the
     * request answered {@code 400} (or {@code 503} when the store cannot tell).
     */
    private boolean tokenIssued(ContainerRequestContext request, Principal principal, String token, String scopedKey,
            String owner) {
        try {
            if (tokens.admit(principal, token,
                    () -> OwnedClaim.giveBack(store, policy, scopedKey, owner, waits, retries, () -> { }))) {
                return true;
            }
        } catch (RuntimeException e) {
            request.abortWith(storeFailed(scopedKey, false, e));
            return false;
        }
        request.abortWith(ProblemResponses.of(IdempotencyProblem.UNKNOWN_TOKEN,
                "The " + keys.name() + " is not a token issued to this caller, or it expired; nothing was executed."
                        + " Ask for a new token."));
        return false;
    }

    private Response unauthorized() {
        return ProblemResponses.unauthorized("This endpoint requires an authenticated caller; nothing was executed.",
                settings.authenticationChallenge());
    }

    /**
     * Logs (throttled) and reports a store that could not answer before anything ran.
     *
     * @return the {@code 503} answer of an endpoint that fails closed
     */
    private Response storeFailed(String scopedKey, boolean failingOpen, RuntimeException cause) {
        ClaimFailures.log(policy, failingOpen, cause);
        events.fire(IdempotencyOutcome.STORE_FAILURE, policy, scopedKey, true);
        return ProblemResponses.retryable(IdempotencyProblem.STORE_UNAVAILABLE,
                "The idempotency store cannot be reached; the request was not executed. Retry later.",
                settings.retryAfterSeconds());
    }

    private Response answerFrom(IdempotencyRecord existing, String fingerprint, String scopedKey) {
        IdempotencyOutcome outcome = RetryOutcomes.of(existing, fingerprint);
        events.fire(outcome, policy, scopedKey, true);
        return answer(outcome, existing);
    }

    private Response answer(IdempotencyOutcome decided, IdempotencyRecord existing) {
        if (decided == IdempotencyOutcome.MISMATCH) {
            return ProblemResponses.of(IdempotencyProblem.KEY_REUSED, keyReused);
        }
        switch (existing.state()) {
            case IN_PROGRESS, EXECUTED -> {
                return ProblemResponses.retryable(IdempotencyProblem.REQUEST_IN_PROGRESS,
                        "A request with this " + keys.name() + " is still being processed. Retry later.",
                        settings.retryAfterSeconds());
            }
            case OUTCOME_LOST -> {
                return ProblemResponses.of(IdempotencyProblem.RESPONSE_LOST,
                        "The request with this " + keys.name() + " was executed, but its response was lost before it"
                                + " could be stored. It will not be executed again.");
            }
            case COMPLETED -> {
                // replayed below
            }
        }
        StoredOutcome outcome = existing.outcome();
        if (!outcome.bodyStored()) {
            Response.ResponseBuilder problem = ProblemResponses.builder(IdempotencyProblem.RESPONSE_NOT_STORED,
                    "The request with this " + keys.name() + " succeeded with status " + outcome.status()
                            + ", but its response was not stored (too large, or it could not be written). It will not be executed again.");
            copyHeaders(outcome, problem, true);
            return problem.header(settings.replayedHeader(), "true").build();
        }
        Response.ResponseBuilder replay = Response.status(outcome.status());
        copyHeaders(outcome, replay, false);
        if (outcome.bodyLength() > 0) {
            replay.entity(outcome.body());
        }
        return replay.header(settings.replayedHeader(), "true").build();
    }

    private static void copyHeaders(StoredOutcome outcome, Response.ResponseBuilder builder, boolean locationOnly) {
        outcome.headers().forEach((name, values) -> {
            if (!locationOnly || name.equalsIgnoreCase("Location")) {
                values.forEach(value -> builder.header(name, value));
            }
        });
    }
}
