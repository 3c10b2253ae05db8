package dev.idempotency.sample;

import java.util.Map;

import jakarta.ws.rs.core.Response;

/** The sample's own errors as RFC 9457 problems, like the library's. */
final class ProblemJson {

    private ProblemJson() {
    }

    /**
     * @param status the status
     * @param title a short summary of the problem type
     * @param detail this occurrence; never the client's input
     * @return an {@code application/problem+json} response
     */
    static Response of(Response.Status status, String title, String detail) {
        return Response.status(status)
                .type("application/problem+json")
                .entity(Map.of("type", "about:blank", "title", title, "status", status.getStatusCode(), "detail", detail))
                .build();
    }
}
