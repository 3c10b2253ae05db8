package dev.idempotency.jaxrs.internal;

import static dev.idempotency.jaxrs.internal.FakeRequests.REPLAYED_HEADER;
import static dev.idempotency.jaxrs.internal.FakeRequests.compressed;
import static dev.idempotency.jaxrs.internal.FakeRequests.gzip;
import static dev.idempotency.jaxrs.internal.FakeRequests.post;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import jakarta.ws.rs.core.Response;

import org.junit.jupiter.api.Test;

import dev.idempotency.jaxrs.internal.FakeRequests.Answer;
import dev.idempotency.jaxrs.internal.FakeRequests.Library;
import dev.idempotency.jaxrs.internal.FakeRequests.Server;

/**
 * What a retry must keep to be replayed, per {@code fingerprint} mode, in this JVM: canonical JSON
 * (member order, whitespace and number spelling do not count), selected JSON members, multipart
 * parts without their boundary, or the key alone; the method, the path and the query count in
 * every mode.
 */
class FingerprintModesTest {

    private static final String ORDER = "{\"orderId\":\"o-1\",\"amount\":1250,\"currency\":\"EUR\"}";

    private final Library library = new Library();
    private final AtomicInteger runs = new AtomicInteger();

    private Function<String, Response> created() {
        return body -> Response.status(201).entity("{\"payment\":" + runs.incrementAndGet() + "}")
                .type("application/json").build();
    }

    private static void assertReplayOf(Answer first, Answer retry) {
        assertThat(retry.status).as(retry.toString()).isEqualTo(first.status);
        assertThat(retry.body).isEqualTo(first.body);
        assertThat(retry.header(REPLAYED_HEADER)).isEqualTo("true");
    }

    private static void assertKeyReused(Answer answer) {
        assertThat(answer.status).as(answer.toString()).isEqualTo(422);
        assertThat(answer.problemType()).isEqualTo("key-reused");
    }

    /**
     * A body sent with {@code Content-Encoding: gzip} is fingerprinted, and its JSON read, as what it
     * encodes, and handed to the method as it was sent (the application's decoder reads it): the
     * same order gzipped again at another time (another header) is the same request, and a JSON-only
     * endpoint takes it.
     */
    @Test
    void aGzippedBodyIsFingerprintedAsWhatItEncodes() {
        Server bytes = library.server("create");
        Answer first = bytes.send(post("/payments", gzip(ORDER, 1)).key("k-1").header("Content-Encoding", "gzip"),
                created());
        Answer again = bytes.send(post("/payments", gzip(ORDER, 2)).key("k-1").header("Content-Encoding", "gzip"),
                created());
        Answer other = bytes.send(post("/payments", gzip(ORDER.replace("1250", "1251"), 1)).key("k-1")
                .header("Content-Encoding", "gzip"), created());

        assertThat(first.status).isEqualTo(201);
        assertReplayOf(first, again);
        assertKeyReused(other);

        Server json = library.server("createJson");
        Answer parsed = json.send(post("/payments", gzip(ORDER, 1)).key("k-2").header("Content-Encoding", "GZIP"),
                created());
        Answer plain = json.send(post("/payments", ORDER).key("k-2"), created());
        assertThat(parsed.status).as(parsed.toString()).isEqualTo(201);
        assertReplayOf(parsed, plain);
    }

    /**
     * A gzipped body that decodes past the body limit is refused before anything runs; one that
     * does not decode as its header says (decoded already by an application's filter that left the
     * header, corrupt) counts as its bytes, as before, and so does an empty one.
     */
    @Test
    void aGzippedBodyTooLargeOnceDecodedIsRefusedAndOneThatDoesNotDecodeCountsAsItsBytes() {
        library.config.put("idempotency.max-request-body-size", "1048576");
        Server server = library.server("create");
        byte[] broken = gzip(ORDER, 1);
        broken[broken.length - 5] ^= 0x55; // its CRC no longer matches

        Answer bomb = server.send(post("/payments", gzip("0".repeat(2 * 1024 * 1024), 1)).key("k-2")
                .header("Content-Encoding", "gzip"), created());
        Answer corrupt = server.send(post("/payments", broken).key("k-1").header("Content-Encoding", "gzip"), created());
        Answer decodedAlready = server.send(post("/payments", ORDER).key("k-3").header("Content-Encoding", "gzip"),
                created());
        Answer empty = server.send(post("/payments", "").key("k-4").header("Content-Encoding", "gzip, identity"),
                created());

        assertThat(bomb.status).isEqualTo(413);
        assertThat(corrupt.status).as("its bytes, to the method (whose decoder refuses it)").isEqualTo(201);
        assertThat(decodedAlready.status).isEqualTo(201);
        assertThat(empty.status).isEqualTo(201);
        assertThat(server.send(post("/payments", ORDER).key("k-3").header("Content-Encoding", "gzip"), created())
                .header(REPLAYED_HEADER)).isEqualTo("true");
        assertThat(server.executions()).isEqualTo(3);
    }

    /**
     * A few kilobytes that decode to the whole body limit (16 MiB of one repeated byte): the filter
     * decoded, parsed and canonicalised it all (hundreds of MiB allocated, seconds of CPU) before
     * anything was claimed, on an endpoint that might not even take gzip. A compressed body may now
     * decode to 100 times its size (idempotency.max-decoded-body-expansion), or to 4 MiB whatever
     * its size, as zip-bomb guards allow; large bodies of ordinary redundancy pass, and so does
     * bulk JSON of few distinct values up to 4 MiB.
     */
    @Test
    void aSmallBodyThatDecodesToTheWholeLimitIsRefusedBeforeItIsParsed() {
        Server server = library.server("stripe");
        byte[] bomb = gzip("[" + "0,".repeat(4_000_000) + "0]", 1);

        Answer refused = server.send(post("/webhooks", bomb).header("Content-Encoding", "gzip")
                .header("Content-Type", "application/json"), created());

        assertThat(bomb.length).as("a small request").isLessThan(20_000);
        assertThat(refused.status).as(refused.toString()).isEqualTo(413);
        assertThat(refused.problemType()).isEqualTo("request-too-large");
        assertThat(server.executions()).isZero();

        StringBuilder orders = new StringBuilder("[");
        for (int i = 0; i < 20_000; i++) {
            orders.append(i == 0 ? "" : ",").append("{\"orderId\":\"o-").append(i).append("\",\"amount\":1250}");
        }
        Server json = library.server("createJson");
        Answer large = json.send(post("/payments", gzip(orders.append(']').toString(), 1)).key("k-9")
                .header("Content-Encoding", "gzip"), created());
        assertThat(large.status).as("a large body of ordinary redundancy").isEqualTo(201);

        // bulk JSON of few distinct values compresses far beyond 100 times (here about 130): taken up to 4 MiB
        StringBuilder lines = new StringBuilder("[");
        for (int i = 0; i < 40_000; i++) {
            lines.append(i == 0 ? "" : ",").append("{\"sku\":\"sku-").append(i % 50).append("\",\"quantity\":1,\"note\":null}");
        }
        byte[] bulk = gzip(lines.append(']').toString(), 1);
        Answer repetitive = json.send(post("/payments", bulk).key("k-10").header("Content-Encoding", "gzip"), created());
        assertThat(repetitive.status).as("bulk JSON of %d bytes sent", bulk.length).isEqualTo(201);

        library.config.put("idempotency.max-decoded-body-expansion", "0"); // no bound but the body's
        Server unbounded = library.server("stripe");
        assertThat(unbounded.send(post("/webhooks", bomb).header("Content-Encoding", "gzip")
                .header("Content-Type", "application/json"), created()).status).as("the body limit alone").isEqualTo(400);
    }

    /**
     * A zlib body with bytes after its stream (a trailing line feed): decoded as Jersey's decoder
     * decodes it, ignoring them (zlib has its checksum); since the rule for raw deflate (all of the
     * body a deflate stream) was applied to zlib too, a JSON endpoint refused it.
     */
    @Test
    void aZlibBodyWithBytesAfterItsStreamIsReadAsWhatItEncodes() {
        byte[] zlib = compressed(ORDER, java.util.zip.DeflaterOutputStream::new);
        byte[] withALineFeed = java.util.Arrays.copyOf(zlib, zlib.length + 1);
        withALineFeed[zlib.length] = '\n';
        Server json = library.server("createJson");

        Answer deflated = json.send(post("/payments", withALineFeed).key("k-12").header("Content-Encoding", "deflate"),
                created());
        Answer plain = json.send(post("/payments", ORDER).key("k-12"), created());

        assertThat(deflated.status).as(deflated.toString()).isEqualTo(201);
        assertReplayOf(deflated, plain);
    }

    /** A cause chain that comes back on itself (legal with initCause) must not hold the request thread for ever. */
    @Test
    void aCauseChainThatLoopsEndsTheCheckForTheServersOwnLimit() {
        java.io.IOException first = new java.io.IOException("first");
        java.io.IOException second = new java.io.IOException("second");
        first.initCause(second);
        second.initCause(first);

        assertThat(org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(2),
                () -> RequestBody.refusedAsTooLarge(first))).isFalse();
    }

    /**
     * Bytes that are no deflate stream (an application's filter decoded the body already and left
     * the header) may still inflate as raw deflate: a few garbage bytes, and the rest ignored, so
     * two bodies differing after them were one request. Only a stream that is all deflate counts
     * as deflate.
     */
    @Test
    void bytesThatAreNotAllDeflateCountAsTheBytesSent() throws Exception {
        java.util.Random random = new java.util.Random(7);
        byte[] found = null;
        for (int tries = 0; tries < 200_000 && found == null; tries++) {
            byte[] candidate = new byte[64];
            random.nextBytes(candidate);
            java.util.zip.Inflater raw = new java.util.zip.Inflater(true);
            raw.setInput(candidate);
            byte[] out = new byte[4096];
            try {
                raw.inflate(out);
                if (raw.finished() && raw.getRemaining() > 1 && (candidate[0] & 0x0F) != 8) {
                    found = candidate;
                }
            } catch (java.util.zip.DataFormatException notDeflate) {
                // next
            } finally {
                raw.end();
            }
        }
        assertThat(found).as("random bytes that raw inflate stops early in").isNotNull();
        byte[] other = found.clone();
        other[63] ^= 0x01;
        Server server = library.server("create");

        Answer first = server.send(post("/payments", found).key("k-11").header("Content-Encoding", "deflate"), created());
        Answer changed = server.send(post("/payments", other).key("k-11").header("Content-Encoding", "deflate"), created());

        assertThat(first.status).isEqualTo(201);
        assertKeyReused(changed);
    }

    /**
     * A zlib header with its preset-dictionary flag (FDICT): the inflater stops at once, asking for
     * a dictionary nobody has, and the body read as empty, so every such body had one fingerprint
     * and a reused key with another body was replayed. The same for bytes that only look like such
     * a header (text whose first two bytes pass the header's check, sent with a stale
     * {@code Content-Encoding: deflate}). They count as the bytes sent now.
     */
    @Test
    void aZlibBodyThatNeedsADictionaryCountsAsTheBytesSent() {
        byte[] first = "x = 5, pay 100 EUR".getBytes(StandardCharsets.US_ASCII);
        byte[] other = "x = 6, pay 999999 EUR".getBytes(StandardCharsets.US_ASCII);
        assertThat(((first[0] & 0xFF) << 8 | (first[1] & 0xFF)) % 31).as("a zlib header's check").isZero();
        assertThat(first[1] & 0x20).as("its preset-dictionary flag").isNotZero();
        Server server = library.server("create");

        Answer paid = server.send(post("/payments", first).key("k-12").header("Content-Encoding", "deflate"), created());
        Answer changed = server.send(post("/payments", other).key("k-12").header("Content-Encoding", "deflate"), created());

        assertThat(paid.status).isEqualTo(201);
        assertKeyReused(changed);
    }

    /**
     * Raw deflate (no zlib header), which Jersey's decoder takes: refused as "not JSON" by a JSON
     * endpoint, as the library only inflated zlib.
     */
    @Test
    void aRawDeflateBodyIsReadAsWhatItEncodes() {
        byte[] raw = compressed(ORDER, out -> new java.util.zip.DeflaterOutputStream(out, new java.util.zip.Deflater(6, true)));
        Server json = library.server("createJson");

        Answer deflated = json.send(post("/payments", raw).key("k-7").header("Content-Encoding", "deflate"), created());
        Answer plain = json.send(post("/payments", ORDER).key("k-7"), created());

        assertThat(deflated.status).as(deflated.toString()).isEqualTo(201);
        assertReplayOf(deflated, plain);
    }

    /** As Undertow (WildFly) names it: its entity limit is enforced by this IOException while the body is read. */
    static final class RequestTooBigException extends java.io.IOException {
        private static final long serialVersionUID = 1L;
    }

    /**
     * A body past the server's own limit (WildFly's max-post-size, 10 MiB by default, below the
     * library's 16 MiB): the server stops the read with its "too big" exception, which the filter
     * took for a truncated body and answered 400 unreadable-body ("resend"), which fails again
     * every time. 413 now.
     */
    @Test
    void aBodyTheServerRefusesAsTooBigIsTooLargeNotUnreadable() {
        Server server = library.server("create");
        FakeRequests.Request tooBig = post("/payments", ORDER).key("k-8").header("Content-Length", "12000000");
        tooBig.entity = new java.io.InputStream() {
            @Override
            public int read() throws java.io.IOException {
                throw new java.io.IOException("the request was too large", new RequestTooBigException());
            }
        };

        Answer answer = server.send(tooBig, created());

        assertThat(answer.status).as(answer.toString()).isEqualTo(413);
        assertThat(answer.problemType()).isEqualTo("request-too-large");
        assertThat(server.executions()).isZero();
    }

    @Test
    void inJsonModeAnotherMemberOrderOrWhitespaceReplays() {
        Server server = library.server("createJson");
        Answer first = server.send(post("/payments", ORDER).key("k-1"), created());

        Answer reordered = server.send(post("/payments",
                "{ \"currency\" : \"EUR\",\n  \"amount\" : 1250.0, \"orderId\" : \"o-1\" }\r\n").key("k-1"), created());
        Answer escaped = server.send(post("/payments", "{\"orderId\":\"o\\u002d1\",\"amount\":12.5e2,\"currency\":\"EUR\"}")
                .key("k-1"), created());

        assertReplayOf(first, reordered);
        assertReplayOf(first, escaped);
        assertThat(server.executions()).isEqualTo(1);
    }

    @Test
    void inJsonModeAnotherValueTypeOrPathGets422() {
        Server server = library.server("createJson");
        server.send(post("/payments", ORDER).key("k-1"), created());

        List<Answer> reuses = List.of(
                server.send(post("/payments", ORDER.replace("1250", "1251")).key("k-1"), created()),
                server.send(post("/payments", ORDER.replace("1250", "\"1250\"")).key("k-1"), created()),
                server.send(post("/payments", ORDER.replace("}", ",\"note\":null}")).key("k-1"), created()),
                server.send(post("/payments", "[" + ORDER + "]").key("k-1"), created()),
                server.send(post("/refunds", ORDER).key("k-1"), created()),
                server.send(post("/payments?dryRun=true", ORDER).key("k-1"), created()));

        reuses.forEach(FingerprintModesTest::assertKeyReused);
        assertThat(server.executions()).isEqualTo(1);
    }

    @Test
    void inJsonModeABodyThatIsNotJsonGets400WhereTheEndpointConsumesJsonOnly() {
        Server server = library.server("createJson");

        List<Answer> answers = List.of(
                server.send(post("/payments", "orderId=o-1&amount=1250").key("k-1"), created()),
                server.send(post("/payments", ORDER + ORDER).key("k-1"), created()),
                server.send(post("/payments", "{\"amount\":1250").key("k-1"), created()));

        for (Answer answer : answers) {
            assertThat(answer.status).isEqualTo(400);
            assertThat(answer.problemType()).isEqualTo("unreadable-body");
            assertThat(answer.problem().getString("detail")).contains("not JSON").doesNotContain("IDEMP");
        }
        assertThat(server.executions()).isZero();
        assertThat(library.store.calls()).as("nothing claimed: the key can be used with a fixed body").isEmpty();
        assertThat(server.send(post("/payments", ORDER).key("k-1"), created()).status).isEqualTo(201);
    }

    @Test
    void inJsonModeABodyThatIsNotJsonCountsAsBytesWhereTheEndpointTakesAnything() {
        Server server = library.server("createJsonOrBytes");
        Answer first = server.send(post("/payments", "amount=1250").key("k-1"), created());

        Answer same = server.send(post("/payments", "amount=1250").key("k-1"), created());
        Answer other = server.send(post("/payments", "amount=1251").key("k-1"), created());
        Answer json = server.send(post("/payments", ORDER).key("k-2"), created());
        Answer jsonReordered = server.send(post("/payments", "{\"currency\":\"EUR\",\"orderId\":\"o-1\",\"amount\":1250}")
                .key("k-2"), created());

        assertReplayOf(first, same);
        assertKeyReused(other);
        assertReplayOf(json, jsonReordered);
        assertThat(server.executions()).isEqualTo(2);
    }

    @Test
    void withFingerprintMembersAChangeElsewhereReplaysAndAChangeInAListedMemberGets422() {
        Server server = library.server("charge");
        String charge = "{\"amount\":1250,\"currency\":\"EUR\",\"items\":[{\"sku\":\"A-1\",\"qty\":1}],"
                + "\"requestedAt\":\"2025-01-01T10:00:00Z\"}";
        Answer first = server.send(post("/charges", charge).key("k-1"), created());

        Answer retriedLater = server.send(post("/charges", charge.replace("10:00:00", "10:00:07")
                .replace("\"qty\":1", "\"qty\":2")).key("k-1"), created());
        Answer reordered = server.send(post("/charges", "{\"currency\":\"EUR\",\"items\":[{\"qty\":1,\"sku\":\"A-1\"}],"
                + "\"amount\":1.25e3}").key("k-1"), created());
        List<Answer> reuses = List.of(
                server.send(post("/charges", charge.replace("1250", "1300")).key("k-1"), created()),
                server.send(post("/charges", charge.replace("EUR", "USD")).key("k-1"), created()),
                server.send(post("/charges", charge.replace("A-1", "B-2")).key("k-1"), created()));

        assertReplayOf(first, retriedLater);
        assertReplayOf(first, reordered);
        reuses.forEach(FingerprintModesTest::assertKeyReused);
        assertThat(reuses.get(0).problem().getString("detail")).isEqualTo("This Idempotency-Key was used with a different"
                + " request (the body's /amount, /currency, /items/0/sku, method, path or query).");
        assertThat(server.executions()).isEqualTo(1);
    }

    @Test
    void withFingerprintMembersAMissingMemberIsNotTheSameAsANullOne() {
        Server server = library.server("charge");
        server.send(post("/charges", "{\"amount\":1250}").key("absent"), created());
        server.send(post("/charges", "{\"amount\":1250,\"currency\":null}").key("null"), created());

        Answer nullForAbsent = server.send(post("/charges", "{\"amount\":1250,\"currency\":null}").key("absent"), created());
        Answer absentForNull = server.send(post("/charges", "{\"amount\":1250}").key("null"), created());
        Answer stillAbsent = server.send(post("/charges", "{\"amount\":1250,\"items\":[]}").key("absent"), created());

        assertKeyReused(nullForAbsent);
        assertKeyReused(absentForNull);
        assertThat(stillAbsent.header(REPLAYED_HEADER)).as("items[0] missing either way").isEqualTo("true");
        assertThat(server.executions()).isEqualTo(2);
    }

    @Test
    void aMultipartUploadRetriedWithANewBoundaryReplays() {
        Server server = library.server("upload");
        Answer first = server.send(upload("----a1b2", "invoice.pdf", "%PDF-1.7 first page"), created());

        Answer retried = server.send(upload("----z9y8x7", "invoice.pdf", "%PDF-1.7 first page"), created());
        Answer quotedBoundary = server.send(upload("\"q u o t e d\"", "invoice.pdf", "%PDF-1.7 first page"), created());

        assertReplayOf(first, retried);
        assertReplayOf(first, quotedBoundary);
        assertThat(server.executions()).isEqualTo(1);
    }

    @Test
    void aMultipartUploadWithOtherContentOrPartHeadersGets422() {
        Server server = library.server("upload");
        server.send(upload("b1", "invoice.pdf", "%PDF-1.7 first page"), created());

        List<Answer> reuses = List.of(
                server.send(upload("b2", "invoice.pdf", "%PDF-1.7 other page"), created()),
                server.send(upload("b3", "receipt.pdf", "%PDF-1.7 first page"), created()),
                server.send(upload("b4", "invoice.pdf", "%PDF-1.7 first page\r\n"), created()));

        reuses.forEach(FingerprintModesTest::assertKeyReused);
        assertThat(server.executions()).isEqualTo(1);
    }

    @Test
    void aMultipartBodyThatCannotBeSplitCountsAsBytes() {
        Server server = library.server("upload");
        String truncated = "--b1\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n%PDF";
        Answer first = server.send(post("/uploads", truncated).key("k-1")
                .header("Content-Type", "multipart/form-data; boundary=b1"), created());

        Answer same = server.send(post("/uploads", truncated).key("k-1")
                .header("Content-Type", "multipart/form-data; boundary=b1"), created());
        Answer otherBoundary = server.send(post("/uploads", truncated.replace("b1", "b2")).key("k-1")
                .header("Content-Type", "multipart/form-data; boundary=b2"), created());

        assertThat(first.status).as("the server's parser decides; the library does not refuse it").isEqualTo(201);
        assertReplayOf(first, same);
        assertKeyReused(otherBoundary);
    }

    @Test
    void aMultipartBodyNamingTwoBoundariesCountsAsBytes() {
        // A media type's parameters are a map to the server's parser (the last boundary wins); the
        // library took the first: the parts the method read were a preamble to it, which a
        // multipart body's reader ignores, and another amount under the key was replayed.
        Server server = library.server("upload");
        String contentType = "multipart/form-data; boundary=outer; boundary=inner";
        Answer first = server.send(post("/uploads", twoBoundaries("100")).key("k-1").header("Content-Type", contentType),
                created());

        Answer otherAmount = server.send(post("/uploads", twoBoundaries("999")).key("k-1")
                .header("Content-Type", contentType), created());
        Answer same = server.send(post("/uploads", twoBoundaries("100")).key("k-1").header("Content-Type", contentType),
                created());

        assertThat(first.status).isEqualTo(201);
        assertKeyReused(otherAmount);
        assertReplayOf(first, same);
        assertThat(server.executions()).isEqualTo(1);
    }

    /** The parts under the last boundary, then an empty body under the first one. */
    private static String twoBoundaries(String amount) {
        return "--inner\r\nContent-Disposition: form-data; name=\"amount\"\r\n\r\n" + amount + "\r\n--inner--\r\n"
                + "--outer\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nx\r\n--outer--\r\n";
    }

    @Test
    void theSameBytesInAnotherCharsetAreAnotherRequest() {
        // "Zürich" in ISO-8859-1 is "Z\u00fcrich"; the same bytes read as windows-1251 are "Zьrich".
        // The method reads the text its charset says; the fingerprint hashed the bytes alone, and
        // the other city got the first one's answer.
        Server server = library.server("create");
        byte[] zurich = "{\"city\":\"Z\u00fcrich\"}".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        Answer first = server.send(post("/payments", zurich).key("k-1")
                .header("Content-Type", "application/json; charset=ISO-8859-1"), created());
        Answer otherCharset = server.send(post("/payments", zurich).key("k-1")
                .header("Content-Type", "application/json; charset=windows-1251"), created());
        Answer same = server.send(post("/payments", zurich).key("k-1")
                .header("Content-Type", "application/json;charset=\"iso-8859-1\""), created());

        assertThat(first.status).isEqualTo(201);
        assertKeyReused(otherCharset);
        assertReplayOf(first, same);
        assertThat(server.executions()).isEqualTo(1);
    }

    @Test
    void utf8DeclaredOrNotIsOneRequest() {
        // JSON is UTF-8 whatever the header says (RFC 8259), and so is a body that declares no
        // charset here: fingerprints of such requests stay what they were before charsets counted.
        Server server = library.server("create");
        Answer first = server.send(post("/payments", ORDER).key("k-1").header("Content-Type", "application/json"),
                created());
        Answer utf8 = server.send(post("/payments", ORDER).key("k-1")
                .header("Content-Type", "application/json; charset=UTF-8"), created());
        Answer none = server.send(post("/payments", ORDER).key("k-1"), created());

        assertReplayOf(first, utf8);
        assertReplayOf(first, none);
        assertThat(server.executions()).isEqualTo(1);
    }

    @Test
    void withFingerprintNoneTheKeyAloneDecidesWithinMethodPathAndQuery() {
        Server server = library.server("createByKeyAlone");
        Answer first = server.send(post("/payments", ORDER).key("k-1"), created());

        Answer otherBody = server.send(post("/payments", "{\"anything\":\"else\"}").key("k-1"), created());
        Answer otherPath = server.send(post("/refunds", ORDER).key("k-1"), created());
        Answer otherQuery = server.send(post("/payments?x=1", ORDER).key("k-1"), created());

        assertReplayOf(first, otherBody);
        assertKeyReused(otherPath);
        assertKeyReused(otherQuery);
        assertThat(otherPath.problem().getString("detail"))
                .isEqualTo("This Idempotency-Key was used with a different request (method, path or query).");
        assertThat(server.executions()).isEqualTo(1);
    }

    @Test
    void theDefaultBodyModeStillTellsMemberOrderAndBoundariesApart() {
        Server server = library.server("create");
        server.send(post("/payments", ORDER).key("k-1"), created());
        server.send(upload("b1", "invoice.pdf", "%PDF"), created());

        assertKeyReused(server.send(post("/payments", "{\"currency\":\"EUR\",\"orderId\":\"o-1\",\"amount\":1250}")
                .key("k-1"), created()));
        assertKeyReused(server.send(upload("b2", "invoice.pdf", "%PDF"), created()));
    }

    /** A multipart/form-data upload of one file and one field, as a client builds it with a boundary of its choice. */
    private static FakeRequests.Request upload(String boundary, String filename, String content) {
        String bare = boundary.startsWith("\"") ? boundary.substring(1, boundary.length() - 1) : boundary;
        String body = "preamble, ignored\r\n"
                + "--" + bare + "\r\n"
                + "Content-Disposition: form-data; name=\"purpose\"\r\n\r\n"
                + "dispute_evidence\r\n"
                + "--" + bare + "  \r\n"
                + "Content-Disposition: form-data; name=\"file\"; filename=\"" + filename + "\"\r\n"
                + "Content-Type: application/pdf\r\n\r\n"
                + content + "\r\n"
                + "--" + bare + "--\r\n"
                + "epilogue " + bare;
        return post("/uploads", body).key("k-up").header("Content-Type", "multipart/form-data; boundary=" + boundary);
    }
}
