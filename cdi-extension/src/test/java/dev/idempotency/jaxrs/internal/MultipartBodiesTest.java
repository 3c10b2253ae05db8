package dev.idempotency.jaxrs.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

/** How a multipart body is split into parts for its fingerprint (fingerprint = MULTIPART). */
class MultipartBodiesTest {

    private static final String TYPE = "multipart/form-data; boundary=b";

    private static List<MultipartBodies.Part> split(String body) {
        byte[] bytes = body.getBytes(StandardCharsets.ISO_8859_1);
        return MultipartBodies.split(TYPE, bytes, bytes.length);
    }

    @Test
    void aFoldedHeaderLineContinuesThePreviousValueWithOneSpace() {
        List<MultipartBodies.Part> parts = split("--b\r\nX-Note: a\r\n  b \r\n\t\r\n\tc\r\nY: d\r\n\r\ncontent\r\n--b--");

        assertThat(parts).hasSize(1);
        assertThat(parts.get(0).headers()).containsExactly("x-note", "a b c", "y", "d");
    }

    /**
     * Each folded line copied the whole value so far: a body of folded lines cost the square of
     * their count, all of it in the request filter, before any claim, for any caller (a 1.3 MB
     * body took 9 s, the default 16 MiB limit about 25 minutes). Now linear: 640,000 folded lines
     * (2.6 MB) well within the bound, which the quadratic work missed many times over.
     */
    @Test
    void manyFoldedHeaderLinesCostTimeInProportionToTheirCount() {
        int lines = 640_000;
        StringBuilder body = new StringBuilder(lines * 4 + 64).append("--b\r\nX: x\r\n");
        for (int i = 0; i < lines; i++) {
            body.append(" a\r\n");
        }
        body.append("\r\ncontent\r\n--b--");

        List<MultipartBodies.Part> parts = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> split(body.toString()));

        assertThat(parts).hasSize(1);
        assertThat(parts.get(0).headers().get(1)).hasSize(1 + 2 * lines).startsWith("x a a");
    }
}
