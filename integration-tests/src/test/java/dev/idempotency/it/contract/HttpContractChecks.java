package dev.idempotency.it.contract;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.Http.text;
import static dev.idempotency.it.support.Problems.PROBLEM;
import static dev.idempotency.it.support.Problems.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;

import dev.idempotency.it.resources.ContractResource;
import dev.idempotency.it.resources.Counters;
import dev.idempotency.it.resources.DeclinedException;
import dev.idempotency.it.resources.Gates;
import dev.idempotency.it.resources.InTransactionResumer;
import dev.idempotency.it.resources.OutcomeLog;
import dev.idempotency.it.resources.RejectedException;
import dev.idempotency.it.resources.SwitchableStore;
import dev.idempotency.it.resources.TokensEndpoint;
import dev.idempotency.it.resources.UnmanagedResource;
import dev.idempotency.it.support.OnSampleApp;
import dev.idempotency.it.support.RawHttp;
import dev.idempotency.it.support.ServerUnderTest;

/**
 * Every row of the HTTP contract, over real HTTP against the sample app on Payara Micro: statuses,
 * problem types, executions counted by the app, and replayed bytes. Run once per store module.
 */
abstract class HttpContractChecks extends OnSampleApp {

    /** How many duplicates may wait at once on a node, in the contract suite's deployments. */
    static final int MAX_WAITING = 20;

    static final String ORDER = "{\"orderId\":\"o-1\",\"amount\":1250,\"currency\":\"EUR\"}";

    /** The contract suite's settings. */
    static final String CONFIG = String.join("\n",
            "idempotency.max-stored-body-size=1024",
            "idempotency.max-request-body-size=65536",
            "dev.idempotency.it.resources.ContractResource/configured/Idempotent/required=false",
            "dev.idempotency.it.resources.ContractResource/tokenByConfig/Idempotent/serverIssuedKeys=true",
            "idempotency.tokens.max-per-principal=20",
            "idempotency.tokens.allowed-origins=https://app.example.test, http://localhost:1",
            "idempotency.in-progress.max-waiting=" + MAX_WAITING);

    /**
     * @param archive a sample deployment
     * @return it with the contract suite's resources
     */
    static WebArchive withContractResources(WebArchive archive) {
        return archive.addClasses(ContractResource.class, Counters.class, SwitchableStore.class, RejectedException.class,
                RejectedException.Mapper.class, UnmanagedResource.class, DeclinedException.class,
                DeclinedException.Mapper.class, OutcomeLog.class, TokensEndpoint.class, Gates.class,
                InTransactionResumer.class);
    }

    long executions(String endpoint) {
        return http.count("api/contract/count/" + endpoint);
    }

    @Test
    void aNewKeyRunsOnceAndItsRetryReplaysTheSameBytes() {
        long before = executions();
        String key = newKey();

        HttpResponse<byte[]> first = http.postJson(PAYMENTS, key, ORDER);
        HttpResponse<byte[]> retry = http.postJson(PAYMENTS, key, ORDER);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).as("replayed bytes").isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Location")).isPresent().isEqualTo(first.headers().firstValue("Location"));
        assertThat(retry.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
        assertThat(first.headers().allValues("Set-Cookie")).as("the resource sets a cookie").isNotEmpty();
        assertThat(retry.headers().allValues("Set-Cookie")).as("cookies are never replayed").isEmpty();
        assertThat(executions() - before).isEqualTo(1);
    }

    @Test
    void eachOutcomeIsObservedAsAnEventAndCountedAsAMetric() {
        String endpoint = "dev.idempotency.sample.PaymentResource#create(dev.idempotency.sample.PaymentRequest)";
        Map<String, Long> observedBefore = observed(endpoint);
        Map<String, Long> countedBefore = metrics(endpoint);
        String key = newKey();

        assertThat(http.postJson(PAYMENTS, key, ORDER).statusCode()).isEqualTo(201);
        assertThat(http.postJson(PAYMENTS, key, ORDER).statusCode()).isEqualTo(201);
        assertThat(http.postJson(PAYMENTS, key, ORDER).statusCode()).isEqualTo(201);
        assertProblem(http.postJson(PAYMENTS, key, ORDER.replace("1250", "1251")), 422, "key-reused");

        Map<String, Long> expected = Map.of("CLAIMED", 1L, "COMPLETED", 1L, "REPLAYED", 2L, "MISMATCH", 1L,
                "CONFLICT", 0L, "RELEASED", 0L);
        Map<String, Long> observed = observed(endpoint);
        Map<String, Long> counted = metrics(endpoint);
        expected.forEach((outcome, times) -> {
            assertThat(observed.get(outcome) - observedBefore.get(outcome))
                    .as("observed " + outcome + ": " + observedBefore + " -> " + observed).isEqualTo(times);
            if (ServerUnderTest.current().hasMicroProfileMetrics()) {
                assertThat(counted.get(outcome) - countedBefore.get(outcome))
                        .as("metric " + outcome + ": " + countedBefore + " -> " + counted).isEqualTo(times);
            }
        });
    }

    private Map<String, Long> observed(String endpoint) {
        Map<String, Long> counts = new java.util.TreeMap<>();
        for (String outcome : new String[] {"CLAIMED", "COMPLETED", "REPLAYED", "MISMATCH", "CONFLICT", "RELEASED"}) {
            counts.put(outcome, http.count("api/outcomes/" + outcome + "?endpoint=" + java.net.URLEncoder.encode(endpoint, java.nio.charset.StandardCharsets.UTF_8)));
        }
        return counts;
    }

    /** The application's {@code idempotency_outcomes_total} counters, from the server's {@code /metrics}. */
    private Map<String, Long> metrics(String endpoint) {
        HttpResponse<byte[]> scrape = http.send(HttpRequest.newBuilder(http.base().resolve("/metrics?scope=application"))
                .header("Accept", "text/plain").GET().build());
        Map<String, Long> counts = new java.util.TreeMap<>();
        for (String outcome : new String[] {"CLAIMED", "COMPLETED", "REPLAYED", "MISMATCH", "CONFLICT", "RELEASED"}) {
            counts.put(outcome, 0L);
        }
        if (!ServerUnderTest.current().hasMicroProfileMetrics()) {
            // The limit the README states: no MicroProfile Metrics on this server, so no counter, and the
            // application deployed and answered without the Metrics API.
            assertThat(scrape.statusCode()).as("/metrics on " + ServerUnderTest.current()).isEqualTo(404);
            return counts;
        }
        if (scrape.statusCode() == 404 && text(scrape).contains("Not available scope")) {
            return counts; // Payara answers 404 while the application has registered no metric yet
        }
        assertThat(scrape.statusCode()).as(text(scrape)).isEqualTo(200);
        java.util.regex.Matcher line = java.util.regex.Pattern.compile(
                "(?m)^idempotency_outcomes_total\\{([^}]*)\\}\\s+([0-9.E+]+)").matcher(text(scrape));
        while (line.find()) {
            String tags = line.group(1);
            if (tags.contains("endpoint=\"" + endpoint + "\"")) {
                java.util.regex.Matcher outcome = java.util.regex.Pattern.compile("outcome=\"([a-z_]+)\"").matcher(tags);
                if (outcome.find()) {
                    counts.put(outcome.group(1).toUpperCase(java.util.Locale.ROOT), (long) Double.parseDouble(line.group(2)));
                }
            }
        }
        return counts;
    }

    private String tokenFor(String user) {
        HttpResponse<byte[]> issued = http.postJson("api/tokens", null, "", user);
        assertThat(issued.statusCode()).as(text(issued)).isEqualTo(201);
        assertThat(issued.headers().firstValue("Cache-Control")).get().asString().contains("no-store");
        java.util.regex.Matcher token = java.util.regex.Pattern.compile("\"token\":\"([A-Za-z0-9_-]{43})\"")
                .matcher(text(issued));
        assertThat(token.find()).as(text(issued)).isTrue();
        assertThat(text(issued)).contains("\"expiresAt\":\"", "\"header\":\"Idempotency-Key\"");
        return token.group(1);
    }

    @Test
    void aServerIssuedTokenRunsOnceReplaysAndIsUselessToOthersOrElsewhere() {
        long before = executions("token-only");
        assertProblem(http.postJson("api/contract/token-only", newKey(), "{}", "alice"), 400, "unknown-token");
        assertThat(executions("token-only")).as("a key the client made up runs nothing").isEqualTo(before);

        String token = tokenFor("alice");
        HttpResponse<byte[]> first = http.postJson("api/contract/token-only", token, "{}", "alice");
        HttpResponse<byte[]> retry = http.postJson("api/contract/token-only", token, "{}", "alice");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(retry.body()).as("a used token replays").isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");

        assertProblem(http.postJson("api/contract/token-only", token, "{}", "bob"), 400, "unknown-token");
        assertProblem(http.postJson("api/contract/token-only", token, "{}", null), 400, "unknown-token");
        assertProblem(http.postJson("api/contract/token-only-too", token, "{}", "alice"), 422, "key-reused");
        assertThat(executions("token-only")).isEqualTo(before + 1);
        assertThat(executions("token-only-too")).isZero();
    }

    @Test
    void serverIssuedKeysCanBeSwitchedOnInConfig() {
        assertProblem(http.postJson("api/contract/token-by-config", newKey(), "{}", "alice"), 400, "unknown-token");
        String token = tokenFor("alice");
        assertThat(http.postJson("api/contract/token-by-config", token, "{}", "alice").statusCode()).isEqualTo(200);
        assertThat(executions("token-by-config")).isEqualTo(1);
    }

    @Test
    void anotherSitesPageCannotSpendACallersTokens() {
        // A page of another site can make the browser POST to the token endpoint with the caller's
        // credentials (a form, a fetch without CORS): each such request used to be issued a token
        // (unread by the page) and counted against the caller's bound, until the caller's own
        // page got 429 too-many-tokens for a whole token ttl.
        String host = http.base().getHost() + ":" + http.base().getPort();
        for (int i = 0; i < 25; i++) {
            assertProblem(tokenRequest("carol", "Origin", "https://evil.example.test", "Sec-Fetch-Site", "cross-site"),
                    403, "cross-site-token-request");
        }
        assertProblem(tokenRequest("carol", "Origin", "https://evil.example.test"), 403, "cross-site-token-request");
        assertProblem(tokenRequest("carol", "Origin", "null"), 403, "cross-site-token-request");
        assertProblem(tokenRequest("carol", "Origin", "http://" + host, "Sec-Fetch-Site", "cross-site"),
                403, "cross-site-token-request");

        assertThat(tokenRequest("carol", "Origin", "http://" + host, "Sec-Fetch-Site", "same-origin").statusCode())
                .as("the application's own page").isEqualTo(201);
        assertThat(tokenRequest("carol", "Origin", "http://" + host).statusCode())
                .as("a browser without Fetch Metadata, the same origin").isEqualTo(201);
        assertThat(tokenRequest("carol", "Origin", "https://app.example.test", "Sec-Fetch-Site", "cross-site").statusCode())
                .as("an origin in idempotency.tokens.allowed-origins").isEqualTo(201);
        assertThat(tokenRequest("carol").statusCode()).as("a client that is no browser").isEqualTo(201);
    }

    private HttpResponse<byte[]> tokenRequest(String user, String... headers) {
        HttpRequest.Builder request = http.request("api/tokens").POST(HttpRequest.BodyPublishers.noBody())
                .header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString(
                        (user + ":" + user).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return http.send(request.build());
    }

    @Test
    void tokenIssuanceIsBoundedPerPrincipal() {
        HttpResponse<byte[]> refused = null;
        for (int i = 0; i < 21 && refused == null; i++) {
            HttpResponse<byte[]> answer = http.postJson("api/tokens", null, "", "bob");
            if (answer.statusCode() != 201) {
                refused = answer;
            }
        }
        assertThat(refused).as("the 21st token within the ttl is refused").isNotNull();
        assertProblem(http.postJson("api/tokens", null, "", null), 403, "anonymous-token-request");
        assertProblem(refused, 429, "too-many-tokens");
        assertThat(refused.headers().firstValue("Retry-After")).isPresent();
        assertThat(tokenFor("alice")).as("other callers still get theirs").isNotBlank();
    }

    @Test
    void aMissingKeyIs400AndNothingRuns() {
        long before = executions();

        assertProblem(http.postJson(PAYMENTS, null, ORDER), 400, "missing-key");

        assertThat(executions()).isEqualTo(before);
    }

    @Test
    void malformedKeysAre400AndNothingRuns() throws Exception {
        long before = executions();
        assertProblem(http.postJson(PAYMENTS, "", ORDER), 400, "invalid-key");
        assertProblem(http.postJson(PAYMENTS, "k".repeat(256), ORDER), 400, "invalid-key");
        assertProblem(http.postJson(PAYMENTS, "two, keys", ORDER), 400, "invalid-key");
        assertProblem(http.postJson(PAYMENTS, "\"unterminated", ORDER), 400, "invalid-key");
        assertProblem(http.postJson(PAYMENTS, "\"a\" trailing", ORDER), 400, "invalid-key");

        RawHttp.Answer twoHeaders = RawHttp.post(http.base(), PAYMENTS, ORDER,
                "Idempotency-Key: " + newKey(), "Idempotency-Key: " + newKey());
        assertThat(twoHeaders.status()).isEqualTo(400);
        assertThat(twoHeaders.body()).contains(PROBLEM + "invalid-key").contains("2 Idempotency-Key headers");

        // Payara's HTTP parser refuses control characters and raw non-ASCII in any header itself,
        // with an empty 400, before the application sees the request (other servers reach our parser).
        for (String header : new String[] {
            "Idempotency-Key: caf\u00e9-" + newKey(),
            "Idempotency-Key: \"caf\u00e9\"",
            "Idempotency-Key: tab\u0001" + newKey()}) {
            RawHttp.Answer answer = RawHttp.post(http.base(), PAYMENTS, ORDER, header);
            assertThat(answer.status()).as(header).isEqualTo(400);
            assertThat(answer.body()).as(header).doesNotContain("Exception").doesNotContain("payer");
        }
        assertThat(executions()).isEqualTo(before);
    }

    @Test
    void theLongestAllowedKeyWorksAndAQuotedKeyEqualsItsBareFormParametersOrNot() {
        String longest = "k" + newKey().replace("-", "").repeat(8).substring(0, 254);
        assertThat(longest).hasSize(255);
        assertThat(http.postJson(PAYMENTS, longest, ORDER).statusCode()).isEqualTo(201);

        String key = newKey();
        HttpResponse<byte[]> bare = http.postJson(PAYMENTS, key, ORDER);
        HttpResponse<byte[]> quoted = http.postJson(PAYMENTS, "\"" + key + "\"", ORDER);
        assertThat(quoted.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(quoted.body()).isEqualTo(bare.body());
        // a structured-field Item may carry parameters: they are not part of the key
        HttpResponse<byte[]> withParameters = http.postJson(PAYMENTS, "\"" + key + "\";v=1;client=\"sdk 2\"", ORDER);
        assertThat(withParameters.statusCode()).isEqualTo(201);
        assertThat(withParameters.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(withParameters.body()).isEqualTo(bare.body());
    }

    @Test
    void aReusedKeyWithAnotherBodyOrQueryIs422AndNeverAReplay() {
        String key = newKey();
        HttpResponse<byte[]> first = http.postJson(PAYMENTS, key, ORDER);
        long before = executions();

        assertProblem(http.postJson(PAYMENTS, key, ORDER.replace("1250", "1251")), 422, "key-reused");
        assertProblem(http.postJson(PAYMENTS, key, ORDER + " "), 422, "key-reused");
        assertProblem(http.postJson(PAYMENTS + "?currency=USD", key, ORDER), 422, "key-reused");

        assertThat(executions()).isEqualTo(before);
        assertThat(http.postJson(PAYMENTS, key, ORDER).body()).isEqualTo(first.body());
    }

    @Test
    void overloadedResourceMethodsAreTwoOperationsWithKeysOfTheirOwn() {
        String key = newKey();

        HttpResponse<byte[]> one = http.postJson("api/contract/overloaded", key, "{}");
        HttpResponse<byte[]> other = http.postJson("api/contract/overloaded/7", key, "{}");

        assertThat(one.statusCode()).isEqualTo(200);
        assertThat(other.statusCode()).as("not a reuse of the other operation's key: " + text(other)).isEqualTo(200);
        assertThat(http.postJson("api/contract/overloaded", key, "{}").body()).isEqualTo(one.body());
        assertThat(http.postJson("api/contract/overloaded/7", key, "{}").body()).isEqualTo(other.body());
    }

    @Test
    void aRetryWhileTheFirstRunsIs409WithRetryAfter() throws Exception {
        String key = newKey();
        String slow = "{\"orderId\":\"o-2\",\"amount\":10,\"currency\":\"EUR\",\"delayMs\":2000}";
        long before = executions();

        CompletableFuture<HttpResponse<byte[]>> first = CompletableFuture.supplyAsync(() -> http.postJson(PAYMENTS, key, slow));
        http.awaitCount(PAYMENTS + "/executions", before + 1);
        HttpResponse<byte[]> duplicate = http.postJson(PAYMENTS, key, slow);

        assertProblem(duplicate, 409, "request-in-progress");
        assertThat(duplicate.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(first.get().statusCode()).isEqualTo(201);
        assertThat(http.postJson(PAYMENTS, key, slow).body()).isEqualTo(first.get().body());
        assertThat(executions() - before).isEqualTo(1);
    }

    @Test
    void duplicatesInFlightThatWaitGetTheReplayAndPastTheBoundA409AtOnce() throws Exception {
        String key = newKey();
        String path = "api/contract/waiting?gate=" + key;
        long before = executions("waiting");
        long started = executions("waiting.started");
        CompletableFuture<HttpResponse<byte[]>> first = CompletableFuture.supplyAsync(() -> http.postJson(path, key, "{}"));
        http.awaitCount("api/contract/count/waiting.started", started + 1);

        // The first waits at its gate while the duplicates come: MAX_WAITING of them take the
        // places, the others are answered 409 at once, before the first has finished.
        ExecutorService senders = Executors.newFixedThreadPool(MAX_WAITING + 5);
        try {
            List<CompletableFuture<HttpResponse<byte[]>>> duplicates = new ArrayList<>();
            for (int i = 0; i < MAX_WAITING + 5; i++) {
                duplicates.add(CompletableFuture.supplyAsync(() -> http.postJson(path, key, "{}"), senders));
            }
            long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (duplicates.stream().filter(CompletableFuture::isDone).count() < 5 && System.nanoTime() < until) {
                Thread.sleep(10);
            }
            List<HttpResponse<byte[]>> early = duplicates.stream().filter(CompletableFuture::isDone)
                    .map(CompletableFuture::join).toList();
            assertThat(first).as("the first is still at its gate").isNotDone();
            assertThat(early).as("answered while the first still ran: exactly those past the bound").hasSize(5);
            early.forEach(conflict -> assertProblem(conflict, 409, "request-in-progress"));

            http.send(http.request("api/contract/gate/" + key).POST(HttpRequest.BodyPublishers.noBody()).build());

            HttpResponse<byte[]> original = first.get(30, TimeUnit.SECONDS);
            assertThat(original.statusCode()).isEqualTo(200);
            List<HttpResponse<byte[]>> replays = new ArrayList<>();
            for (CompletableFuture<HttpResponse<byte[]>> duplicate : duplicates) {
                HttpResponse<byte[]> answer = duplicate.get(30, TimeUnit.SECONDS);
                if (!early.contains(answer)) {
                    replays.add(answer);
                }
            }
            assertThat(replays).as("each waiting place: the replay").hasSize(MAX_WAITING);
            for (HttpResponse<byte[]> replay : replays) {
                assertThat(replay.statusCode()).isEqualTo(200);
                assertThat(replay.body()).as("the first answer's bytes").isEqualTo(original.body());
                assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            }
            assertThat(executions("waiting") - before).as("executions").isEqualTo(1);
            assertThat(executions("waiting.started") - started).isEqualTo(1);
        } finally {
            senders.shutdownNow();
        }
    }

    @Test
    void aDuplicateWaitingPastItsMaximumGets409AndALaterRetryTheReplay() throws Exception {
        String key = newKey();
        String path = "api/contract/waiting-briefly?gate=" + key;
        long started = executions("waiting-briefly.started");
        CompletableFuture<HttpResponse<byte[]>> first = CompletableFuture.supplyAsync(() -> http.postJson(path, key, "{}"));
        http.awaitCount("api/contract/count/waiting-briefly.started", started + 1);

        long sent = System.nanoTime();
        HttpResponse<byte[]> duplicate = http.postJson(path, key, "{}");
        Duration waited = Duration.ofNanos(System.nanoTime() - sent);

        assertProblem(duplicate, 409, "request-in-progress");
        assertThat(waited).as("it waited its maxWait of 1 s").isGreaterThanOrEqualTo(Duration.ofSeconds(1));
        assertThat(first).as("the first is still at its gate").isNotDone();
        http.send(http.request("api/contract/gate/" + key).POST(HttpRequest.BodyPublishers.noBody()).build());
        HttpResponse<byte[]> original = first.get(30, TimeUnit.SECONDS);
        assertThat(original.statusCode()).isEqualTo(200);
        assertThat(http.postJson(path, key, "{}").body()).isEqualTo(original.body());
        assertThat(executions("waiting-briefly.started") - started).isEqualTo(1);
    }

    @Test
    void aDuplicateWaitingForAFirstThatFailsRunsItselfAndTheOthersGetItsReplay() throws Exception {
        String key = newKey();
        String path = "api/contract/waiting?delayMs=800";
        long before = executions("waiting");
        long started = executions("waiting.started");
        CompletableFuture<HttpResponse<byte[]>> first = CompletableFuture.supplyAsync(() -> http.send(
                http.request(path).header("Idempotency-Key", key).header("X-Fail", "true")
                        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}")).build()));
        http.awaitCount("api/contract/count/waiting.started", started + 1);

        List<HttpResponse<byte[]>> duplicates = http.postAllAtOnce(path, key, "{}", 4);

        assertThat(first.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(500);
        assertThat(duplicates).extracting(HttpResponse::statusCode).containsOnly(200);
        assertThat(duplicates.stream().map(d -> d.headers().firstValue("Idempotent-Replayed").isPresent()))
                .as("one ran after the failure gave the key back; the others replay it").containsOnlyOnce(false);
        assertThat(duplicates.stream().map(d -> new String(d.body())).distinct()).hasSize(1);
        assertThat(executions("waiting") - before).isEqualTo(1);
        assertThat(executions("waiting.started") - started).as("the failed first, then one duplicate").isEqualTo(2);
    }

    @Test
    void aRetryAfterA500RunsAgainButARetryAfterA201DoesNot() {
        String key = newKey();
        String failing = "{\"orderId\":\"o-3\",\"amount\":10,\"currency\":\"EUR\",\"simulateStatus\":500}";
        long before = executions();

        assertThat(http.postJson(PAYMENTS, key, failing).statusCode()).isEqualTo(500);
        HttpResponse<byte[]> retry = http.postJson(PAYMENTS, key, failing);
        assertThat(retry.statusCode()).isEqualTo(500);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(executions() - before).as("a 500 releases the key").isEqualTo(2);

        String ok = newKey();
        http.postJson(PAYMENTS, ok, ORDER);
        http.postJson(PAYMENTS, ok, ORDER);
        assertThat(executions() - before).as("a 201 pins it").isEqualTo(3);
    }

    @Test
    void a4xxAnswerIsStoredAndReplayed() {
        String key = newKey();
        String declined = "{\"orderId\":\"o-4\",\"amount\":10,\"currency\":\"EUR\",\"simulateStatus\":402}";
        long before = executions();

        HttpResponse<byte[]> first = http.postJson(PAYMENTS, key, declined);
        HttpResponse<byte[]> retry = http.postJson(PAYMENTS, key, declined);

        assertThat(first.statusCode()).isEqualTo(402);
        assertThat(retry.statusCode()).isEqualTo(402);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(executions() - before).isEqualTo(1);
    }

    @Test
    void pinnedServerErrorsAreReplayed() {
        String key = newKey();

        HttpResponse<byte[]> first = http.postJson("api/contract/pinned", key, "{}");
        HttpResponse<byte[]> retry = http.postJson("api/contract/pinned", key, "{}");

        assertThat(first.statusCode()).isEqualTo(500);
        assertThat(retry.statusCode()).isEqualTo(500);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
    }

    @Test
    void anExceptionReleasesTheKeyEvenWhenMappedTo4xx() {
        String key = newKey();
        long before = executions("throws");

        assertThat(http.postJson("api/contract/throws", key, "{}").statusCode()).isEqualTo(400);
        HttpResponse<byte[]> retry = http.postJson("api/contract/throws", key, "{}");

        assertThat(retry.statusCode()).isEqualTo(400);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(executions("throws") - before).isEqualTo(2);
    }

    @Test
    void aRequestRejectedBeforeTheMethodRanDoesNotBurnItsKey() {
        String key = newKey();
        long before = executions();

        HttpResponse<byte[]> unreadable = http.postJson(PAYMENTS, key, "{\"orderId\":");
        assertThat(unreadable.statusCode()).isBetween(400, 599);
        HttpResponse<byte[]> fixed = http.postJson(PAYMENTS, key, ORDER);

        assertThat(fixed.statusCode()).as("the same key with a fixed body runs").isEqualTo(201);
        assertThat(executions() - before).isEqualTo(1);
    }

    @Test
    void callersNeverShareKeysOrSeeEachOthersResponses() {
        String key = newKey();
        long before = executions();

        HttpResponse<byte[]> alice = http.postJson(PAYMENTS, key, ORDER, "alice");
        HttpResponse<byte[]> bob = http.postJson(PAYMENTS, key, ORDER, "bob");
        HttpResponse<byte[]> anonymous = http.postJson(PAYMENTS, key, ORDER, null);
        HttpResponse<byte[]> aliceAgain = http.postJson(PAYMENTS, key, ORDER, "alice");
        HttpResponse<byte[]> bobAgain = http.postJson(PAYMENTS, key, ORDER, "bob");

        assertThat(text(alice)).contains("\"payer\":\"alice\"");
        assertThat(text(bob)).contains("\"payer\":\"bob\"");
        assertThat(text(anonymous)).contains("\"payer\":\"anonymous\"");
        assertThat(executions() - before).as("one execution per caller").isEqualTo(3);
        assertThat(aliceAgain.body()).isEqualTo(alice.body());
        assertThat(bobAgain.body()).isEqualTo(bob.body());
        assertThat(text(bobAgain)).doesNotContain("alice");
    }

    @Test
    void anEndpointScopedKeyIsSharedByAllCallers() {
        String key = newKey();
        long before = executions("shared");

        HttpResponse<byte[]> alice = http.postJson("api/contract/shared", key, "{}", "alice");
        HttpResponse<byte[]> bob = http.postJson("api/contract/shared", key, "{}", "bob");

        assertThat(bob.body()).isEqualTo(alice.body());
        assertThat(executions("shared") - before).isEqualTo(1);
    }

    @Test
    void aBodyOverTheLimitIs413AndNothingRuns() {
        long before = executions();
        String huge = "{\"orderId\":\"" + "x".repeat(70_000) + "\",\"amount\":1,\"currency\":\"EUR\"}";

        assertProblem(http.postJson(PAYMENTS, newKey(), huge), 413, "request-too-large");

        assertThat(executions()).isEqualTo(before);
    }

    @Test
    void aResponseTooLargeToStoreIsNeverExecutedTwice() {
        String key = newKey();
        long before = executions("large");

        HttpResponse<byte[]> first = http.postJson("api/contract/large", key, "{}");
        HttpResponse<byte[]> retry = http.postJson("api/contract/large", key, "{}");

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).hasSize(4096);
        assertProblem(retry, 410, "response-not-stored");
        assertThat(retry.headers().firstValue("Location")).hasValue("http://localhost/contract/large/1");
        assertThat(executions("large") - before).isEqualTo(1);
    }

    @Test
    void anAnswerWithoutBodyIsReplayedWithItsHeaders() {
        String key = newKey();

        HttpResponse<byte[]> first = http.postJson("api/contract/no-content", key, "{}");
        HttpResponse<byte[]> retry = http.postJson("api/contract/no-content", key, "{}");

        assertThat(first.statusCode()).isEqualTo(204);
        assertThat(retry.statusCode()).isEqualTo(204);
        assertThat(retry.headers().firstValue("ETag")).isEqualTo(first.headers().firstValue("ETag"));
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    }

    @Test
    void optionalKeysAndUnannotatedEndpointsRunWithoutOne() {
        long optional = executions("optional");
        long plain = executions("plain");
        long configured = executions("configured");

        assertThat(http.postJson("api/contract/optional", null, "{}").statusCode()).isEqualTo(200);
        assertThat(http.postJson("api/contract/optional", null, "{}").statusCode()).isEqualTo(200);
        assertThat(http.postJson("api/contract/plain", null, "{}").statusCode()).isEqualTo(200);
        assertThat(http.postJson("api/contract/configured", null, "{}").statusCode())
                .as("required=false from MicroProfile Config").isEqualTo(200);

        assertThat(executions("optional") - optional).isEqualTo(2);
        assertThat(executions("plain") - plain).isEqualTo(1);
        assertThat(executions("configured") - configured).isEqualTo(1);

        String key = newKey();
        HttpResponse<byte[]> keyed = http.postJson("api/contract/optional", key, "{}");
        assertThat(http.postJson("api/contract/optional", key, "{}").body()).as("with a key, still idempotent")
                .isEqualTo(keyed.body());
    }

    @Test
    void aStoreOutageIs503AndNothingRunsUnlessFailOpen() {
        long before = executions();
        long failOpen = executions("fail-open");
        http.send(http.request("api/contract/store?down=true").POST(HttpRequest.BodyPublishers.noBody()).build());
        try {
            HttpResponse<byte[]> answer = http.postJson(PAYMENTS, newKey(), ORDER);
            assertProblem(answer, 503, "store-unavailable");
            assertThat(answer.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(http.postJson("api/contract/fail-open", newKey(), "{}").statusCode()).isEqualTo(200);
        } finally {
            http.send(http.request("api/contract/store?down=false").POST(HttpRequest.BodyPublishers.noBody()).build());
        }
        assertThat(executions()).as("fail closed").isEqualTo(before);
        assertThat(executions("fail-open") - failOpen).isEqualTo(1);
        assertThat(http.postJson(PAYMENTS, newKey(), ORDER).statusCode()).as("recovered").isEqualTo(201);
    }

    @Test
    void aCompletionStageResourceBehavesTheSame() throws Exception {
        String key = newKey();
        long before = executions("stage");

        CompletableFuture<HttpResponse<byte[]>> first = CompletableFuture.supplyAsync(
                () -> http.postJson("api/contract/stage?delayMs=1500", key, "{}"));
        http.awaitCount("api/contract/count/stage", before + 1);
        assertProblem(http.postJson("api/contract/stage?delayMs=1500", key, "{}"), 409, "request-in-progress");
        assertThat(first.get().statusCode()).isEqualTo(201);
        HttpResponse<byte[]> retry = http.postJson("api/contract/stage?delayMs=1500", key, "{}");
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.get().body());
        assertThat(executions("stage") - before).isEqualTo(1);

        String failing = newKey();
        assertThat(http.postJson("api/contract/stage?fail=true", failing, "{}").statusCode()).isEqualTo(500);
        assertThat(http.postJson("api/contract/stage?fail=true", failing, "{}").statusCode()).isEqualTo(500);
        assertThat(executions("stage") - before).as("a failed stage releases the key").isEqualTo(3);
    }

    @Test
    void anAsyncResponseResourceBehavesTheSame() throws Exception {
        String key = newKey();
        long before = executions("suspended");

        CompletableFuture<HttpResponse<byte[]>> first = CompletableFuture.supplyAsync(
                () -> http.postJson("api/contract/suspended?delayMs=1500", key, "{}"));
        http.awaitCount("api/contract/count/suspended", before + 1);
        assertProblem(http.postJson("api/contract/suspended?delayMs=1500", key, "{}"), 409, "request-in-progress");
        assertThat(first.get().statusCode()).isEqualTo(200);
        HttpResponse<byte[]> retry = http.postJson("api/contract/suspended?delayMs=1500", key, "{}");
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.get().body());
        assertThat(executions("suspended") - before).isEqualTo(1);
    }

    /**
     * An {@code AsyncResponse} the application cancels ({@code 503}, {@code Retry-After}) keeps its
     * key in progress until the lease ends, as any other {@code 5xx} of an asynchronous endpoint:
     * the work it stood for may still run, and must not run twice.
     */
    @Test
    void aCancelledAsyncResponseKeepsItsKeyInProgress() {
        String key = newKey();
        long before = executions("suspended");

        HttpResponse<byte[]> cancelled = http.postJson("api/contract/suspended?delayMs=10&cancel=true", key, "{}");
        assertThat(cancelled.statusCode()).isEqualTo(503);
        assertThat(cancelled.headers().firstValue("Retry-After")).hasValue("2");
        assertProblem(http.postJson("api/contract/suspended?delayMs=10&cancel=true", key, "{}"), 409, "request-in-progress");
        assertThat(executions("suspended") - before).as("the retry did not run").isEqualTo(1);
    }

    /**
     * An answer written inside a transaction that rolls back after it left (an AsyncResponse
     * resumed in a {@code @Transactional} service): nothing happened, so the key is given back and
     * the retry runs; the answer of the run that committed is then replayed. On the JPA store the
     * answer had been completed in that transaction and the claim ended at once: the rollback left
     * the key in progress, and retries got {@code 409} until the lease ran out (a minute here).
     */
    @Test
    void anAnswerWrittenInATransactionThatRollsBackAfterItLeftGivesTheKeyBack() throws Exception {
        String key = newKey();
        long before = executions("resumed-in-transaction");

        HttpResponse<byte[]> first = http.postJson("api/contract/resumed-in-transaction", key, "{}");
        // the answers leave before their transactions end: until then, retries are told 409
        HttpResponse<byte[]> retry = afterInProgress(() -> http.postJson("api/contract/resumed-in-transaction", key, "{}"));
        HttpResponse<byte[]> replay = afterInProgress(() -> http.postJson("api/contract/resumed-in-transaction", key, "{}"));

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.statusCode()).as(new String(retry.body())).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).as("nothing committed, nothing replayed").isEmpty();
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(replay.body()).isEqualTo(retry.body());
        assertThat(executions("resumed-in-transaction") - before).isEqualTo(2);
    }

    /** @return the answer to the request, sent again while it is told {@code 409} (for up to 10 s) */
    static HttpResponse<byte[]> afterInProgress(Supplier<HttpResponse<byte[]>> request)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        HttpResponse<byte[]> answer = request.get();
        while (answer.statusCode() == 409 && System.nanoTime() < deadline) {
            Thread.sleep(100);
            answer = request.get();
        }
        return answer;
    }

    @Test
    void aResourceThatIsNotACdiBeanGetsTheContractToo() {
        String key = newKey();
        long before = http.count("api/unmanaged/count");

        assertProblem(http.postJson("api/unmanaged", null, "{}"), 400, "missing-key");
        HttpResponse<byte[]> first = http.postJson("api/unmanaged", key, "{}");
        HttpResponse<byte[]> retry = http.postJson("api/unmanaged", key, "{}");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());

        String failing = newKey();
        assertThat(http.postJson("api/unmanaged?fail=true", failing, "{}").statusCode()).isEqualTo(500);
        assertThat(http.postJson("api/unmanaged?fail=true", failing, "{}").statusCode())
                .as("an unmapped exception releases the key").isEqualTo(500);
        assertThat(http.count("api/unmanaged/count") - before).isEqualTo(3);
    }

    @Test
    void aTransactionThatRollsBackAfterTheMethodReturnedReleasesTheKey() {
        String key = newKey();
        long before = executions("rollback");

        HttpResponse<byte[]> first = http.postJson("api/contract/rollback", key, "{}");
        HttpResponse<byte[]> retry = http.postJson("api/contract/rollback", key, "{}");

        // The method answered normally, but @Transactional rolled its work back (rollback-only):
        // the answer must not be pinned to the key, since nothing happened.
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).as("nothing committed, nothing replayed").isEmpty();
        assertThat(executions("rollback") - before).isEqualTo(2);
    }

    @Test
    void aCheckedExceptionWhoseTransactionCommittedIsNeverRunAgain() {
        String key = newKey();
        long before = executions("committed-decline");

        HttpResponse<byte[]> first = http.postJson("api/contract/committed-decline", key, "{}");
        HttpResponse<byte[]> retry = http.postJson("api/contract/committed-decline", key, "{}");

        // @Transactional commits on a checked exception: the work is in, so its answer is pinned.
        assertThat(first.statusCode()).isEqualTo(402);
        assertThat(retry.statusCode()).isEqualTo(402);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(executions("committed-decline") - before).isEqualTo(1);
    }

    @Test
    void aCommitThatFailsAfterTheWorkWasMarkedExecutedReleasesTheKey() {
        String key = newKey();
        long before = executions("failed-commit");

        HttpResponse<byte[]> first = http.postJson("api/contract/failed-commit", key, "{}");
        HttpResponse<byte[]> retry = http.postJson("api/contract/failed-commit", key, "{}");

        // The mark was written in the transaction, then the commit failed: the retry must run, not
        // be told "in progress" or "response lost".
        assertThat(first.statusCode()).as(new String(first.body())).isGreaterThanOrEqualTo(500);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(retry.statusCode()).as(new String(retry.body())).isGreaterThanOrEqualTo(500);
        assertThat(executions("failed-commit") - before).isEqualTo(2);
    }
}
