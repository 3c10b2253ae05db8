package dev.idempotency.jaxrs.internal;

import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;

import dev.idempotency.internal.JsonText;
import dev.idempotency.jaxrs.IdempotencyProblem;

/**
 * Builds {@code application/problem+json} answers. The JSON is written here, not through a JSON
 * provider, so that the answer is the same on every server whatever JSON-B or Jackson setup the
 * application has.
 */
public final class ProblemResponses {

    /** The problem media type of RFC 9457. */
    public static final String PROBLEM_JSON = "application/problem+json";

    private ProblemResponses() {
    }

    /**
     * @param problem the problem type
     * @param detail a human-readable explanation, without keys or bodies
     * @return the answer
     */
    public static Response of(IdempotencyProblem problem, String detail) {
        return builder(problem, detail).build();
    }

    /**
     * @param problem the problem type
     * @param detail a human-readable explanation
     * @param retryAfterSeconds the {@code Retry-After} value
     * @return the answer, with {@code Retry-After}
     */
    public static Response retryable(IdempotencyProblem problem, String detail, int retryAfterSeconds) {
        return builder(problem, detail).header(HttpHeaders.RETRY_AFTER, retryAfterSeconds).build();
    }

    /**
     * @param detail a human-readable explanation
     * @param challenge the {@code WWW-Authenticate} value, or {@code ""} for none
     * @return the {@code 401 authentication-required} answer
     */
    public static Response unauthorized(String detail, String challenge) {
        Response.ResponseBuilder builder = builder(IdempotencyProblem.AUTHENTICATION_REQUIRED, detail);
        if (!challenge.isEmpty()) {
            builder.header(HttpHeaders.WWW_AUTHENTICATE, challenge);
        }
        return builder.build();
    }

    /**
     * @param problem the problem type
     * @param detail a human-readable explanation
     * @return a builder with status, media type and body set, to add headers to
     */
    public static Response.ResponseBuilder builder(IdempotencyProblem problem, String detail) {
        return Response.status(problem.status(), problem.reasonPhrase()).type(PROBLEM_JSON).entity(body(problem, detail));
    }

    /**
     * @param problem the problem type
     * @param detail a human-readable explanation
     * @return the RFC 9457 body
     */
    public static String body(IdempotencyProblem problem, String detail) {
        return "{\"type\":\"" + problem.type() + "\",\"title\":" + quote(problem.title()) + ",\"status\":"
                + problem.status() + ",\"detail\":" + quote(detail) + "}";
    }

    /** @return the text as a JSON string (the one writer the library's JSON shares) */
    static String quote(String text) {
        StringBuilder out = new StringBuilder(text.length() + 2);
        JsonText.quoted(text, out);
        return out.toString();
    }
}
