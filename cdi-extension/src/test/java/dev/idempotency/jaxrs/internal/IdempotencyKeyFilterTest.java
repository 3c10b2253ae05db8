package dev.idempotency.jaxrs.internal;

import static dev.idempotency.IdempotencyOutcome.CLAIMED;
import static dev.idempotency.IdempotencyOutcome.COMPLETED;
import static dev.idempotency.IdempotencyOutcome.CONFLICT;
import static dev.idempotency.IdempotencyOutcome.MISMATCH;
import static dev.idempotency.IdempotencyOutcome.OUTCOME_LOST;
import static dev.idempotency.IdempotencyOutcome.RELEASED;
import static dev.idempotency.IdempotencyOutcome.REPLAYED;
import static dev.idempotency.IdempotencyOutcome.STORE_FAILURE;
import static dev.idempotency.jaxrs.internal.FakeRequests.REPLAYED_HEADER;
import static dev.idempotency.jaxrs.internal.FakeRequests.post;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;

import jakarta.json.JsonObject;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;

import org.junit.jupiter.api.Test;

import dev.idempotency.IssuedToken;
import dev.idempotency.claim.HttpClaim;
import dev.idempotency.jaxrs.internal.FakeRequests.Answer;
import dev.idempotency.jaxrs.internal.FakeRequests.Library;
import dev.idempotency.jaxrs.internal.FakeRequests.Server;
import dev.idempotency.spi.RecordState;
import dev.idempotency.store.ReplayCache;
import dev.idempotency.tokens.TokenRegistry;

/**
 * The request side of the HTTP contract, in this JVM: what the key filter answers, and what it
 * lets through, for the first request with a key and for its retries.
 */
class IdempotencyKeyFilterTest {

    /** Bytes that are no text in any charset: a replay must hand back exactly these. */
    private static final byte[] RECEIPT = {0, 1, (byte) 0xff, (byte) 0xfe, 'o', 'k', '\r', '\n', (byte) 0x80};

    private final Library library = new Library();

    private static Function<String, Response> created(byte[] body) {
        return requestBody -> Response.status(201).entity(body).type("application/vnd.acme.receipt")
                .header("Location", "/payments/1").header("ETag", "\"v1\"").header("X-Request-Id", "r-1")
                .header("X-Trace-Id", "t-1").header("Set-Cookie", "session=secret").build();
    }

    private static Function<String, Response> echo() {
        return requestBody -> Response.status(201).entity("paid: " + requestBody).type("text/plain").build();
    }

    @Test
    void aNewKeyIsAdmittedUnderAClaimAndTheMethodGetsTheWholeBody() {
        Server server = library.server("create");
        FakeRequests.Request request = post("/payments", "{\"cents\":100}").key("k-1");

        Server.Exchange exchange = server.start(request);

        assertThat(exchange.aborted()).as("nothing answered by the filter").isFalse();
        HttpClaim claim = request.claim();
        assertThat(claim).as("the claim travels with the request").isNotNull();
        assertThat(claim.isOpen()).isTrue();
        assertThat(claim.entered()).as("the method has not run yet").isFalse();
        assertThat(library.memory.size()).isEqualTo(1);
        assertThat(library.outcomes()).containsExactly(CLAIMED);

        Answer answer = exchange.finish(echo());

        assertThat(answer.text()).as("the body the filter read is handed on whole").isEqualTo("paid: {\"cents\":100}");
        assertThat(claim.entered()).isTrue();
        assertThat(answer.header(REPLAYED_HEADER)).as("the first answer is no replay").isNull();
    }

    @Test
    void aRetryOfACompletedRequestGetsTheStoredBytesBackWithTheReplayedHeader() {
        library.config.put("idempotency.stored-headers", "X-Request-Id");
        Server server = library.server("create");

        Answer first = server.send(post("/payments", "{\"cents\":100}").key("k-1"), created(RECEIPT));
        Answer retry = server.send(post("/payments", "{\"cents\":100}").key("k-1"), created("other".getBytes()));

        assertThat(first.status).isEqualTo(201);
        assertThat(first.body).isEqualTo(RECEIPT);
        assertThat(retry.status).isEqualTo(201);
        assertThat(retry.body).as("the exact bytes").isEqualTo(RECEIPT);
        assertThat(retry.header(REPLAYED_HEADER)).isEqualTo("true");
        assertThat(retry.header("Location")).isEqualTo("/payments/1");
        assertThat(retry.header("ETag")).isEqualTo("\"v1\"");
        assertThat(retry.header("X-Request-Id")).as("configured as stored").isEqualTo("r-1");
        assertThat(retry.header(HttpHeaders.CONTENT_TYPE)).isEqualTo("application/vnd.acme.receipt");
        assertThat(retry.headers).as("neither credentials nor headers left off the allow-list")
                .doesNotContainKeys("Set-Cookie", "X-Trace-Id");
        assertThat(server.executions()).isEqualTo(1);
        assertThat(library.outcomes()).containsExactly(CLAIMED, COMPLETED, REPLAYED);
    }

    @Test
    void aRetryWhileTheFirstRequestRunsGets409WithRetryAfterAndDoesNotRun() {
        library.config.put("idempotency.retry-after-seconds", "7");
        Server server = library.server("create");
        Server.Exchange first = server.start(post("/payments", "{\"cents\":100}").key("k-1"));

        Answer duplicate = server.send(post("/payments", "{\"cents\":100}").key("k-1"), echo());

        assertThat(duplicate.status).isEqualTo(409);
        assertThat(duplicate.problemType()).isEqualTo("request-in-progress");
        assertThat(duplicate.header(HttpHeaders.RETRY_AFTER)).isEqualTo("7");
        assertThat(server.executions()).isZero();

        first.finish(echo());
        Answer later = server.send(post("/payments", "{\"cents\":100}").key("k-1"), echo());
        assertThat(later.status).as("once the first answered, its answer").isEqualTo(201);
        assertThat(later.header(REPLAYED_HEADER)).isEqualTo("true");
        assertThat(server.executions()).isEqualTo(1);
        assertThat(library.outcomes()).containsExactly(CLAIMED, CONFLICT, COMPLETED, REPLAYED);
    }

    @Test
    void theSameKeyWithAnotherBodyPathOrQueryGets422KeyReused() {
        Server server = library.server("create");
        server.send(post("/payments?currency=eur", "{\"cents\":100}").key("k-1"), echo());

        List<Answer> reuses = List.of(
                server.send(post("/payments?currency=eur", "{\"cents\":999}").key("k-1"), echo()),
                server.send(post("/refunds?currency=eur", "{\"cents\":100}").key("k-1"), echo()),
                server.send(post("/payments?currency=usd", "{\"cents\":100}").key("k-1"), echo()),
                server.send(post("/payments", "{\"cents\":100}").key("k-1"), echo()));

        for (Answer reuse : reuses) {
            assertThat(reuse.status).as(reuse.toString()).isEqualTo(422);
            JsonObject problem = reuse.problem();
            assertThat(problem.getString("type")).isEqualTo("https://idempotency.dev/problems/key-reused");
            assertThat(problem.getInt("status")).isEqualTo(422);
            assertThat(reuse.header(REPLAYED_HEADER)).isNull();
        }
        assertThat(server.executions()).isEqualTo(1);
        assertThat(library.outcomes()).containsExactly(CLAIMED, COMPLETED, MISMATCH, MISMATCH, MISMATCH, MISMATCH);
        assertThat(server.send(post("/payments?currency=eur", "{\"cents\":100}").key("k-1"), echo()).text())
                .as("the first request still replays").isEqualTo("paid: {\"cents\":100}");
    }

    @Test
    void aMissingKeyOnARequiredEndpointGets400AndNothingRuns() {
        Server server = library.server("create");

        Answer answer = server.send(post("/payments", "{}"), echo());

        assertThat(answer.status).isEqualTo(400);
        assertThat(answer.problemType()).isEqualTo("missing-key");
        assertThat(answer.problem().getString("detail")).contains("Idempotency-Key");
        assertThat(server.executions()).isZero();
        assertThat(library.store.calls()).isEmpty();
    }

    @Test
    void aMissingKeyOnAnEndpointWhereItIsOptionalRunsWithoutAnyClaim() {
        Server server = library.server("createWithOptionalKey");
        FakeRequests.Request request = post("/payments", "{}");

        Answer answer = server.send(request, echo());

        assertThat(answer.status).isEqualTo(201);
        assertThat(request.claim()).isNull();
        assertThat(server.send(post("/payments", "{}"), echo()).status).isEqualTo(201);
        assertThat(server.executions()).as("no idempotency without a key").isEqualTo(2);
        assertThat(library.store.calls()).isEmpty();
    }

    @Test
    void aMalformedKeyGets400InvalidKeyAndNothingIsClaimed() {
        library.config.put("idempotency.max-key-length", "8");
        Server server = library.server("create");

        List<Answer> answers = List.of(
                server.send(post("/payments", "{}").key("two words"), echo()),
                server.send(post("/payments", "{}").key(""), echo()),
                server.send(post("/payments", "{}").key("123456789"), echo()),
                server.send(post("/payments", "{}").key("caf\u00e9"), echo()),
                server.send(post("/payments", "{}").key("\"unclosed"), echo()),
                server.send(post("/payments", "{}").key("k-1").key("k-2"), echo()));

        for (Answer answer : answers) {
            assertThat(answer.status).as(answer.toString()).isEqualTo(400);
            assertThat(answer.problemType()).isEqualTo("invalid-key");
        }
        assertThat(server.executions()).isZero();
        assertThat(library.store.calls()).isEmpty();
        assertThat(server.send(post("/payments", "{}").key("12345678"), echo()).status)
                .as("a key of the longest length allowed").isEqualTo(201);
    }

    @Test
    void aBodyOverTheLimitGets413AndNothingIsClaimed() {
        library.config.put("idempotency.max-request-body-size", "16");
        Server server = library.server("create");

        Answer tooLarge = server.send(post("/payments", "{\"cents\":1000000}").key("k-1"), echo());
        Answer declaredTooLarge = server.send(post("/payments", "{}").key("k-1").header("Content-Length", "17"),
                echo());

        for (Answer answer : List.of(tooLarge, declaredTooLarge)) {
            assertThat(answer.status).isEqualTo(413);
            assertThat(answer.problemType()).isEqualTo("request-too-large");
            assertThat(answer.problem().getString("detail")).contains("16 bytes");
        }
        assertThat(server.executions()).isZero();
        assertThat(library.store.calls()).isEmpty();
        assertThat(library.memory.size()).as("the store has no record").isZero();

        Answer fits = server.send(post("/payments", "{\"cents\":100}").key("k-1"), echo());
        assertThat(fits.status).as("the key was not burnt: a body of 16 bytes runs").isEqualTo(201);
    }

    @Test
    void aStoreThatCannotBeReachedGets503WithRetryAfterAndNothingRuns() {
        Server server = library.server("create");
        library.store.down(true);

        Answer answer = server.send(post("/payments", "{}").key("k-1"), echo());

        assertThat(answer.status).isEqualTo(503);
        assertThat(answer.problemType()).isEqualTo("store-unavailable");
        assertThat(answer.header(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
        assertThat(server.executions()).as("fail closed").isZero();
        assertThat(library.outcomes()).containsExactly(STORE_FAILURE);

        library.store.down(false);
        assertThat(server.send(post("/payments", "{}").key("k-1"), echo()).status)
                .as("nothing was claimed: once the store is back, the request runs").isEqualTo(201);
        assertThat(server.executions()).isEqualTo(1);
    }

    /**
     * The fault campaign's {@code 410} for a payment that never committed (stop 46, Redis killed):
     * the release after the failure met the store down and waits for its next background try,
     * whose pause had grown while the store was down. A retry that reaches this node as soon as the
     * store is back must not be told the key is in progress (or its outcome lost): the pending
     * release is tried at once, and the retry runs.
     */
    @Test
    void aRetryOnTheNodeWhoseReleaseIsPendingGetsTheKeyGivenBackAtOnceAndRuns() throws InterruptedException {
        Server server = library.server("create");
        Server.Exchange first = server.start(post("/payments", "{}").key("k-1"));
        library.store.down(true);

        Answer failed = first.finish(body -> Response.serverError().entity("the provider failed").build());
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (library.store.calls("release") < 3 && System.nanoTime() < deadline) { // 0.1 s, then 0.2 s more
            Thread.sleep(5);
        }
        assertThat(library.store.calls("release")).as("tried at the answer and twice in the background").isEqualTo(3);
        library.store.down(false);
        Answer retry = server.send(post("/payments", "{}").key("k-1"), echo());

        assertThat(failed.status).isEqualTo(500);
        assertThat(retry.status).as("the next background try is 0.4 s away: given back at once").isEqualTo(201);
        assertThat(retry.header(REPLAYED_HEADER)).isNull();
        assertThat(server.executions()).isEqualTo(2);
        deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!library.outcomes().contains(RELEASED) && System.nanoTime() < deadline) { // reported on the library's thread
            Thread.sleep(5);
        }
        assertThat(library.outcomes()).containsExactlyInAnyOrder(CLAIMED, RELEASED, CLAIMED, COMPLETED);
    }

    @Test
    void onAFailOpenEndpointARequestRunsUnclaimedWhileTheStoreIsDown() {
        Server server = library.server("createOrRunUnprotected");
        library.store.down(true);
        FakeRequests.Request request = post("/payments", "{}").key("k-1");

        Answer answer = server.send(request, echo());

        assertThat(answer.status).isEqualTo(201);
        assertThat(answer.text()).isEqualTo("paid: {}");
        assertThat(request.claim()).as("run unprotected: no claim").isNull();
        assertThat(library.outcomes()).containsExactly(STORE_FAILURE);

        library.store.down(false);
        assertThat(server.send(post("/payments", "{}").key("k-1"), echo()).header(REPLAYED_HEADER))
                .as("nothing was stored: a retry runs again").isNull();
        assertThat(server.executions()).isEqualTo(2);
    }

    @Test
    void anotherCallerSendingTheSameKeyRunsItsOwnRequestAndNeverGetsTheFirstCallersAnswer() {
        Server server = library.server("create");
        server.send(post("/payments", "{}").key("k-1").as("alice"), body -> Response.ok("alice's receipt").build());

        Answer bob = server.send(post("/payments", "{}").key("k-1").as("bob"),
                body -> Response.ok("bob's receipt").build());
        Answer alice = server.send(post("/payments", "{}").key("k-1").as("alice"), echo());

        assertThat(bob.text()).isEqualTo("bob's receipt");
        assertThat(bob.header(REPLAYED_HEADER)).isNull();
        assertThat(alice.text()).isEqualTo("alice's receipt");
        assertThat(alice.header(REPLAYED_HEADER)).isEqualTo("true");
        assertThat(server.executions()).isEqualTo(2);
    }

    @Test
    void aRetryOfWorkThatCommittedButWhoseAnswerWasLostGets410AndDoesNotRunAgain() {
        Server server = library.server("create");
        FakeRequests.Request first = post("/payments", "{}").key("k-1");
        server.start(first);
        assertThat(first.claim().markExecuted()).as("its transaction commits").isTrue();
        // ... and the node stops before the answer was stored

        Answer meanwhile = server.send(post("/payments", "{}").key("k-1"), echo());
        library.elapse(Duration.ofSeconds(10));
        Answer afterTheLease = server.send(post("/payments", "{}").key("k-1"), echo());

        assertThat(meanwhile.status).as("the outcome may still come").isEqualTo(409);
        assertThat(afterTheLease.status).isEqualTo(410);
        assertThat(afterTheLease.problemType()).isEqualTo("response-lost");
        assertThat(server.executions()).isZero();
        assertThat(library.outcomes()).containsExactly(CLAIMED, CONFLICT, OUTCOME_LOST);
    }

    @Test
    void aRetryAnsweredFromTheReplayCacheNeedsNoStoreUntilTheCacheLetsItGo() {
        library.replayCache = new ReplayCache(1024 * 1024, Duration.ofSeconds(30), library.clock::get);
        Server server = library.server("create");
        server.send(post("/payments", "{}").key("k-1"), created(RECEIPT));
        server.send(post("/payments", "{}").key("k-1"), echo()); // read from the store, then kept

        library.store.down(true);
        Answer cached = server.send(post("/payments", "{}").key("k-1"), echo());
        library.elapse(Duration.ofSeconds(30));
        Answer expired = server.send(post("/payments", "{}").key("k-1"), echo());

        assertThat(cached.status).isEqualTo(201);
        assertThat(cached.body).isEqualTo(RECEIPT);
        assertThat(cached.header(REPLAYED_HEADER)).isEqualTo("true");
        assertThat(expired.status).as("past the cache's ttl, the store is asked again").isEqualTo(503);
        assertThat(library.store.calls("claim")).isEqualTo(3);
        assertThat(server.executions()).isEqualTo(1);
    }

    @Test
    void aKeyThatIsNoTokenIssuedToTheCallerGets400AndIsGivenBack() {
        Server server = library.server("createWithIssuedToken");
        TokenRegistry tokens = new TokenRegistry(library.store, Duration.ofMinutes(30), 100, false);
        IssuedToken alices = tokens.issue(() -> "alice");
        int tokenRecords = library.memory.size();

        Answer guessed = server.send(post("/payments", "{}").key("a".repeat(43)).as("alice"), echo());
        Answer someoneElses = server.send(post("/payments", "{}").key(alices.token()).as("bob"), echo());
        Answer issued = server.send(post("/payments", "{}").key(alices.token()).as("alice"), echo());

        for (Answer refused : List.of(guessed, someoneElses)) {
            assertThat(refused.status).isEqualTo(400);
            assertThat(refused.problemType()).isEqualTo("unknown-token");
        }
        assertThat(issued.status).isEqualTo(201);
        assertThat(server.executions()).isEqualTo(1);
        assertThat(library.memory.size()).as("the refused claims were given back; the used token is recorded")
                .isEqualTo(tokenRecords + 1);
    }

    @Test
    void whatIsStoredIsTheStatusTheAllowListedHeadersAndTheExactBody() {
        Server server = library.server("create");
        FakeRequests.Request first = post("/payments", "{}").key("k-1");
        server.send(first, created(RECEIPT));

        assertThat(library.memory.find(scopedKeyOf(first)))
                .hasValueSatisfying(record -> {
                    assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
                    assertThat(record.outcome().status()).isEqualTo(201);
                    assertThat(record.outcome().body()).isEqualTo(RECEIPT);
                    assertThat(record.outcome().headers()).containsOnlyKeys("Location", "ETag", "Content-Type");
                });
    }

    private static String scopedKeyOf(FakeRequests.Request request) {
        return dev.idempotency.claim.ScopedKey.of(FakeRequests.endpoint("create", false, true).policy(),
                request.principal, request.headers.getFirst(FakeRequests.KEY));
    }

    /**
     * A method that answers bytes it encoded itself (a pass-through of a compressed upstream answer,
     * a pre-compressed export), with its own Content-Encoding: the replay carried the same gzip
     * bytes without the header, which clients cannot read. An encoding the method set is stored
     * with the answer now; one an encoder adds around the library's capture (Jersey's, after the
     * method) is not, since the bytes captured are the plain ones.
     */
    @Test
    void anAnswerTheMethodEncodedItselfIsReplayedWithItsContentEncoding() {
        byte[] gzipped = FakeRequests.gzip("{\"export\":1}", 0);
        Server server = library.server("create");
        java.util.function.Function<String, Response> encoded = body -> Response.ok(gzipped).type("application/json")
                .header("Content-Encoding", "gzip").build();

        Answer first = server.send(post("/payments", "{\"cents\":100}").key("k-gz"), encoded);
        Answer retry = server.send(post("/payments", "{\"cents\":100}").key("k-gz"), encoded);

        assertThat(first.header("Content-Encoding")).isEqualTo("gzip");
        assertThat(retry.header(REPLAYED_HEADER)).isEqualTo("true");
        assertThat(retry.body).isEqualTo(gzipped);
        assertThat(retry.header("Content-Encoding")).isEqualTo("gzip");
        assertThat(server.executions()).isEqualTo(1);
    }
}
