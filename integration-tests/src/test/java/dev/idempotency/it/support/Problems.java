package dev.idempotency.it.support;

import static dev.idempotency.it.support.Http.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;

/** The problem+json answers of the library and the sample, as the tests of every package check them. */
public final class Problems {

    /** Where the library's problem types live: a type is this and its name ({@code key-reused}, ...). */
    public static final String PROBLEM = "https://idempotency.dev/problems/";

    private Problems() {
    }

    /**
     * @param response an answer
     * @param status the status it must have
     * @param type the problem type it must name, e.g. {@code key-reused}
     */
    public static void assertProblem(HttpResponse<byte[]> response, int status, String type) {
        assertThat(response.statusCode()).as(text(response)).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).get().asString().startsWith("application/problem+json");
        assertThat(text(response)).contains("\"type\":\"" + PROBLEM + type + "\"").contains("\"status\":" + status);
        // The contract: a problem's detail is for the client; the coded message (with the bean,
        // method and key hash) is for the server log only.
        assertThat(text(response)).as("a problem names no IDEMP code").doesNotContain("IDEMP");
    }
}
