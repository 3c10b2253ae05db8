package dev.idempotency.jaxrs;

import java.net.URI;

/**
 * The RFC 9457 problem types this library answers with, as {@code application/problem+json}.
 * Their {@code type} URIs are stable and documented in docs/http-contract.md (Problem types).
 */
public enum IdempotencyProblem {

    /** 400: the endpoint requires a key and the request has none. */
    MISSING_KEY(400, "Bad Request", "missing-key", "Idempotency-Key header required"),
    /** 400: the key is empty, too long, not printable US-ASCII, malformed, or sent twice. */
    INVALID_KEY(400, "Bad Request", "invalid-key", "Invalid Idempotency-Key"),
    /** 400: the request body could not be read completely (truncated, broken chunking); nothing was run. */
    UNREADABLE_BODY(400, "Bad Request", "unreadable-body", "Request body could not be read"),
    /**
     * 400: the endpoint requires server-issued keys and the key is not a token issued to this
     * caller, or it expired; nothing was run.
     */
    UNKNOWN_TOKEN(400, "Bad Request", "unknown-token", "Idempotency-Key is not a valid server-issued token"),
    /**
     * 400: the endpoint's keys are scoped by tenant and the request names none (no tenant header,
     * a header sent twice, a JWT without the claim, a resolver that answered none); nothing was run.
     */
    MISSING_TENANT(400, "Bad Request", "missing-tenant", "Tenant required"),
    /**
     * 401: the endpoint refuses anonymous callers ({@code anonymous = REJECT}), or takes its
     * tenant from credentials the caller did not send; nothing was run.
     */
    AUTHENTICATION_REQUIRED(401, "Unauthorized", "authentication-required", "Authentication required"),
    /** 403: the token endpoint issues tokens to authenticated callers only ({@code idempotency.tokens.anonymous}). */
    ANONYMOUS_TOKEN_REQUEST(403, "Forbidden", "anonymous-token-request", "Idempotency tokens require authentication"),
    /**
     * 403: a page of another site made the browser ask the token endpoint for a token; none is
     * issued nor counted ({@code idempotency.tokens.allowed-origins} lets named sites through).
     */
    CROSS_SITE_TOKEN_REQUEST(403, "Forbidden", "cross-site-token-request",
            "Idempotency tokens are not issued to other sites' pages"),
    /**
     * 400: a support look-up that points at no record: no JSON object, an unknown endpoint, no key,
     * no tenant where keys are scoped by tenant.
     */
    INVALID_SUPPORT_REQUEST(400, "Bad Request", "invalid-support-request", "Invalid idempotency support request"),
    /** 403: the support look-up, or its release, needs a role the caller does not have. */
    SUPPORT_ROLE_REQUIRED(403, "Forbidden", "support-role-required", "Idempotency support role required"),
    /** 404: the support look-up found no record for the key (never claimed, released, or expired). */
    NO_RECORD(404, "Not Found", "no-record", "No idempotency record for this key"),
    /** 409: a support release of a claim whose lease still runs; retry after {@code Retry-After} seconds. */
    LEASE_RUNNING(409, "Conflict", "lease-running", "The claim's lease has not run out"),
    /** 409: a support release of a record that is no abandoned claim: its work committed, or it completed. */
    NOT_RELEASABLE(409, "Conflict", "not-releasable", "The idempotency record cannot be released"),
    /** 409: a request with this key is still running; retry after {@code Retry-After} seconds. */
    REQUEST_IN_PROGRESS(409, "Conflict", "request-in-progress", "A request with this Idempotency-Key is in progress"),
    /** 410: the first request succeeded, but its response was too large to keep; it is not run again. */
    RESPONSE_NOT_STORED(410, "Gone", "response-not-stored", "The response for this Idempotency-Key was not stored"),
    /**
     * 410: the first request's work committed, but its response was lost before it could be kept
     * (the server stopped in between); it is not run again.
     */
    RESPONSE_LOST(410, "Gone", "response-lost", "The response for this Idempotency-Key was lost"),
    /** 413: the body is larger than {@code idempotency.max-request-body-size}; nothing was run. */
    REQUEST_TOO_LARGE(413, "Content Too Large", "request-too-large", "Request body too large for an idempotent request"),
    /** 422: the key was used before with another request (body, method, path or query). */
    KEY_REUSED(422, "Unprocessable Content", "key-reused", "Idempotency-Key reused with a different request"),
    /** 429: the caller asked the token endpoint for too many tokens; retry after {@code Retry-After} seconds. */
    TOO_MANY_TOKENS(429, "Too Many Requests", "too-many-tokens", "Too many idempotency tokens issued"),
    /** 500: an operation with this key completed, but its outcome could not be stored; it is not run again. */
    OUTCOME_UNAVAILABLE(500, "Internal Server Error", "outcome-unavailable",
            "The outcome for this idempotency key is unavailable"),
    /** 503: the idempotency store cannot be reached; nothing was run (fail closed). */
    STORE_UNAVAILABLE(503, "Service Unavailable", "store-unavailable", "Idempotency store unavailable");

    /** Where the type URIs live. */
    public static final String TYPE_BASE = "https://idempotency.dev/problems/";

    private final int status;
    private final String reasonPhrase;
    private final URI type;
    private final String title;

    IdempotencyProblem(int status, String reasonPhrase, String slug, String title) {
        this.status = status;
        this.reasonPhrase = reasonPhrase;
        this.type = URI.create(TYPE_BASE + slug);
        this.title = title;
    }

    /** @return the HTTP status */
    public int status() {
        return status;
    }

    /** @return the RFC 9110 reason phrase (some servers know none for 422) */
    public String reasonPhrase() {
        return reasonPhrase;
    }

    /** @return the problem type URI */
    public URI type() {
        return type;
    }

    /** @return the short, fixed title */
    public String title() {
        return title;
    }
}
