package dev.idempotency.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

import dev.idempotency.jaxrs.internal.CapturingOutputStream;
import dev.idempotency.jaxrs.internal.RequestBody;

class StreamsTest {

    @Test
    void aBodyIsReadWholeUpToTheLimit() throws Exception {
        byte[] body = new byte[100_000];
        Arrays.fill(body, (byte) 'a');

        RequestBody read = RequestBody.read(new ByteArrayInputStream(body), -1, 100_000);

        assertThat(read.length()).isEqualTo(100_000);
        assertThat(Arrays.copyOf(read.bytes(), read.length())).isEqualTo(body);
    }

    @Test
    void aBodyOverTheLimitIsRefusedDeclaredOrNot() {
        byte[] body = new byte[1001];
        assertThatThrownBy(() -> RequestBody.read(new ByteArrayInputStream(body), -1, 1000))
                .isInstanceOf(RequestBody.TooLargeException.class);
        assertThatThrownBy(() -> RequestBody.read(InputStream.nullInputStream(), 5000, 1000))
                .isInstanceOf(RequestBody.TooLargeException.class);
        assertThatThrownBy(() -> RequestBody.read(new ByteArrayInputStream(body), 10, 1000))
                .as("a lying Content-Length does not help").isInstanceOf(RequestBody.TooLargeException.class);
    }

    @Test
    void aDeclaredLengthIsNotAllocatedBeforeTheBytesArrive() throws Exception {
        RequestBody read = RequestBody.read(new ByteArrayInputStream(new byte[10]), 16 * 1024 * 1024, 16 * 1024 * 1024);

        assertThat(read.length()).isEqualTo(10);
        assertThat(read.bytes().length).as("capped first allocation").isLessThanOrEqualTo(64 * 1024);
    }

    @Test
    void anExactContentLengthIsReadWithoutGrowing() throws Exception {
        RequestBody read = RequestBody.read(new ByteArrayInputStream(new byte[20_000]), 20_000, 1_000_000);

        assertThat(read.bytes().length).isEqualTo(20_001);
    }

    @Test
    void anEmptyOrMissingBodyIsEmpty() throws Exception {
        assertThat(RequestBody.read(null, -1, 10).length()).isZero();
        assertThat(RequestBody.read(InputStream.nullInputStream(), 0, 0).length()).isZero();
    }

    @Test
    void aSmallBodyIsHeldBackUntilReleased() throws Exception {
        ByteArrayOutputStream client = new ByteArrayOutputStream();
        CapturingOutputStream capture = new CapturingOutputStream(client, 100, () -> {
            throw new AssertionError("no overflow");
        });

        capture.write("{\"id\":".getBytes(StandardCharsets.UTF_8));
        capture.write('7');
        capture.write("}".getBytes(StandardCharsets.UTF_8));
        capture.flush();

        assertThat(client.size()).as("nothing reaches the client before the outcome is stored").isZero();
        assertThat(new String(capture.heldBytes(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":7}");
        capture.release();
        assertThat(client.toString(StandardCharsets.UTF_8)).isEqualTo("{\"id\":7}");
        assertThat(capture.overflowed()).isFalse();
    }

    @Test
    void aBodyOverTheCapStreamsThroughWhole() throws Exception {
        ByteArrayOutputStream client = new ByteArrayOutputStream();
        int[] clientBytesWhenRecorded = {-1};
        CapturingOutputStream capture = new CapturingOutputStream(client, 10, () -> clientBytesWhenRecorded[0] = client.size());

        capture.write("0123456789".getBytes(StandardCharsets.UTF_8));
        assertThat(clientBytesWhenRecorded[0]).as("not yet").isEqualTo(-1);
        capture.write("abc".getBytes(StandardCharsets.UTF_8));
        assertThat(clientBytesWhenRecorded[0]).as("recorded before the first byte left").isZero();
        capture.write("def".getBytes(StandardCharsets.UTF_8));

        assertThat(capture.overflowed()).isTrue();
        assertThat(client.toString(StandardCharsets.UTF_8)).isEqualTo("0123456789abcdef");
        assertThat(capture.heldBytes()).isEmpty();
    }

    @Test
    void aDeclaredLengthIsReadAsALongAndOneBeyondItCountsAsTooLarge() {
        assertThat(RequestBody.declaredLength("1024")).isEqualTo(1024);
        assertThat(RequestBody.declaredLength(" 4611686018427387904 ")).isEqualTo(1L << 62);
        assertThat(RequestBody.declaredLength("99999999999999999999999")).isEqualTo(Long.MAX_VALUE);
        assertThat(RequestBody.declaredLength(null)).isEqualTo(-1);
        assertThat(RequestBody.declaredLength("-5")).isEqualTo(-1);
        assertThat(RequestBody.declaredLength("ten")).isEqualTo(-1);
    }
}
