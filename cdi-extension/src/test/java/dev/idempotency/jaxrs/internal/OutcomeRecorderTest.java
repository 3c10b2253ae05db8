package dev.idempotency.jaxrs.internal;

import static dev.idempotency.IdempotencyOutcome.CLAIMED;
import static dev.idempotency.IdempotencyOutcome.COMPLETED;
import static dev.idempotency.IdempotencyOutcome.CONFLICT;
import static dev.idempotency.IdempotencyOutcome.OUTCOME_LOST;
import static dev.idempotency.IdempotencyOutcome.RELEASED;
import static dev.idempotency.IdempotencyOutcome.REPLAYED;
import static dev.idempotency.jaxrs.internal.FakeRequests.REPLAYED_HEADER;
import static dev.idempotency.jaxrs.internal.FakeRequests.post;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

import jakarta.ws.rs.core.Response;

import org.junit.jupiter.api.Test;

import dev.idempotency.cdi.FakeJta;
import dev.idempotency.claim.ScopedKey;
import dev.idempotency.claim.TransactionBinding;
import dev.idempotency.jaxrs.internal.FakeRequests.Answer;
import dev.idempotency.jaxrs.internal.FakeRequests.Library;
import dev.idempotency.jaxrs.internal.FakeRequests.Request;
import dev.idempotency.jaxrs.internal.FakeRequests.Server;
import dev.idempotency.spi.support.TransactionGuard;

/**
 * The response side of the HTTP contract, in this JVM: which answers are stored for the retries
 * (and how), and which give the key back so that a retry runs again.
 */
class OutcomeRecorderTest {

    private final Library library = new Library();

    private static Request payment() {
        return post("/payments", "{\"cents\":100}").key("k-1");
    }

    private static Function<String, Response> answering(int status, String body) {
        return requestBody -> Response.status(status).entity(body).type("text/plain").build();
    }

    @Test
    void aServerErrorReleasesTheKeySoThatARetryRunsAgain() {
        Server server = library.server("create");

        Answer failed = server.send(payment(), answering(500, "database down"));
        Answer retry = server.send(payment(), answering(201, "paid"));
        Answer again = server.send(payment(), answering(201, "paid twice"));

        assertThat(failed.status).isEqualTo(500);
        assertThat(failed.text()).as("the client still gets the error's body").isEqualTo("database down");
        assertThat(retry.status).isEqualTo(201);
        assertThat(retry.header(REPLAYED_HEADER)).as("it ran again").isNull();
        assertThat(again.text()).isEqualTo("paid");
        assertThat(server.executions()).isEqualTo(2);
        assertThat(library.outcomes()).containsExactly(CLAIMED, RELEASED, CLAIMED, COMPLETED, REPLAYED);
    }

    /**
     * An answer written while the method's transaction still runs: an {@code AsyncResponse} resumed
     * inside a {@code @Transactional} method that then fails (or a transaction spanning the
     * request). The transaction rolls back after the answer went out: nothing happened, so the
     * answer must not be replayed, and a retry runs the work.
     */
    @Test
    void anAnswerWrittenInsideATransactionThatThenRollsBackIsNeverReplayed() {
        withJta(jta -> {
            Server server = library.server("create", true, true);
            jta.begin();
            Answer first = server.send(payment(), answering(201, "paid"));
            Answer meanwhile = server.send(payment(), answering(201, "paid twice"));
            jta.rollback(); // the method threw after resuming: its writes are undone
            Answer retry = server.send(payment(), answering(201, "paid after the rollback"));

            assertThat(first.status).as("the client got what the method resumed with").isEqualTo(201);
            assertThat(meanwhile.status).as("not stored while the transaction may still roll back").isEqualTo(409);
            assertThat(retry.text()).as("the work never happened: it runs").isEqualTo("paid after the rollback");
            assertThat(retry.header(REPLAYED_HEADER)).isNull();
            assertThat(server.executions()).isEqualTo(2);
        });
    }

    /**
     * A transaction spanning the request (T0) around a method that ran and committed in one of its
     * own (T1, which marked the work executed): T0 rolls back after the answer went out. What T1
     * committed stays: the mark is kept and no retry runs the work again.
     */
    @Test
    void aRollbackOfATransactionSpanningTheRequestKeepsTheMarkTheMethodsOwnCommitted() {
        withJta(jta -> {
            Server server = library.server("create", false, true);
            ExecutorService methodsOwn = Executors.newSingleThreadExecutor();
            try {
                jta.begin(); // T0, around the request
                Request first = payment();
                server.send(first, requestBody -> {
                    try {
                        methodsOwn.submit(() -> { // T1, the method's REQUIRES_NEW, committed with its mark
                            jta.begin();
                            new TransactionBinding(new TransactionGuard()).bind(first.claim(), true, null);
                            assertThat(jta.commit()).isTrue();
                        }).get(5, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    return Response.status(201).entity("paid").build();
                });
                jta.rollback();
                Answer retry = server.send(payment(), answering(201, "paid twice"));

                assertThat(retry.status).as("the work committed in T1: it never runs again").isEqualTo(409);
                assertThat(server.executions()).isEqualTo(1);
            } finally {
                methodsOwn.shutdownNow();
            }
        });
    }

    /** The same answer, in a transaction that commits: stored with the commit, and replayed. */
    @Test
    void anAnswerWrittenInsideATransactionIsStoredWhenItCommits() {
        withJta(jta -> {
            Server server = library.server("create", true, true);
            jta.begin();
            server.send(payment(), answering(201, "paid"));
            assertThat(library.store.calls("complete")).as("not before the commit").isZero();
            assertThat(jta.commit()).isTrue();
            Answer retry = server.send(payment(), answering(201, "paid twice"));

            assertThat(retry.text()).isEqualTo("paid");
            assertThat(retry.header(REPLAYED_HEADER)).isEqualTo("true");
            assertThat(server.executions()).isEqualTo(1);
        });
    }

    /**
     * A synchronous method marked executed in a transaction spanning the request, whose answer's
     * body fails to be written: the answer (without its body) is stored in that transaction, so
     * that its rollback, which undoes the mark, gives the key back. Before, the claim was ended
     * keeping a mark the rollback then undid, and nothing gave the key back: 409 until the lease.
     */
    @Test
    void anAnswerThatFailedToBeWrittenForWorkMarkedInARunningTransactionIsGivenBackByItsRollback() {
        withJta(jta -> {
            library.store.joinsCallerTransaction(true);
            Server server = library.server("create");
            Request first = payment();
            jta.begin();

            Answer failed = server.start(first).finishWithWriterFailingAfter(0, requestBody -> {
                assertThat(first.claim().markExecuted()).isTrue(); // as the interceptor does in the transaction
                return Response.status(201).entity("paid").build();
            });
            assertThat(library.store.calls("release")).as("nothing given back while it runs").isZero();
            jta.rollback();

            assertThat(failed.writeFailure).isNotNull();
            assertThat(library.store.calls("release")).as("the rollback undid the mark: given back").isEqualTo(1);
        });
    }

    /**
     * A transaction spanning the request (begun before the resource method, ended after the
     * answer), a store that does not join it: the method throws an exception the transaction
     * commits despite, and a mapper answers {@code 500}. The response filter released the key before
     * the commit, whose executed mark then found no claim to mark: committed work, a free key, and
     * the retry ran it again. The mapped answer is stored once the transaction committed.
     */
    @Test
    void aServerErrorMappedFromAFailureInATransactionSpanningTheRequestIsStoredWhenItCommits() {
        withJta(jta -> {
            Server server = library.server("create");
            jta.begin();
            Answer failed = server.start(payment()).failWithAMappedException(new TransactionBinding(new TransactionGuard()),
                    Response.serverError().entity("declined by the bank's gateway").build());
            assertThat(jta.commit()).isTrue();
            Answer retry = server.send(payment(), answering(201, "paid twice"));

            assertThat(failed.status).isEqualTo(500);
            assertThat(retry.status).as(retry.toString()).isEqualTo(500);
            assertThat(retry.text()).isEqualTo("declined by the bank's gateway");
            assertThat(retry.header(REPLAYED_HEADER)).isEqualTo("true");
            assertThat(server.executions()).isEqualTo(1);
        });
    }

    /** As above, where the transaction rolls back: nothing happened, the key is given back. */
    @Test
    void aServerErrorMappedFromAFailureInATransactionSpanningTheRequestIsGivenBackWhenItRollsBack() {
        withJta(jta -> {
            Server server = library.server("create");
            jta.begin();
            server.start(payment()).failWithAMappedException(new TransactionBinding(new TransactionGuard()),
                    Response.serverError().entity("declined by the bank's gateway").build());
            jta.rollback();

            assertThat(server.send(payment(), answering(201, "paid")).status).isEqualTo(201);
            assertThat(server.executions()).isEqualTo(2);
        });
    }

    /**
     * An asynchronous method whose transaction rolled back while its work goes on (a call to the
     * payment gateway on another thread): the key was released at the rollback, and a retry ran the
     * payment at the same time. It is held until the answer comes, then given back.
     */
    @Test
    void anAsyncMethodsRollbackGivesTheKeyBackOnlyOnceItAnswered() {
        withJta(jta -> {
            Server server = library.server("create", true, true);
            Request first = payment();
            jta.begin();
            FakeRequests.Server.Exchange exchange = server.start(first);
            Response later = exchange.runWithoutAnswering(requestBody -> {
                new TransactionBinding(new TransactionGuard()).bind(first.claim(), false, null); // as the interceptor does
                return Response.status(201).entity("paid").build();
            });
            jta.rollback();

            Answer meanwhile = server.send(payment(), answering(201, "paid twice"));
            Answer answered = exchange.resume(later);
            Answer retry = server.send(payment(), answering(201, "paid after the rollback"));

            assertThat(meanwhile.status).as("the work still runs: not run a second time").isEqualTo(409);
            assertThat(answered.status).isEqualTo(201);
            assertThat(retry.text()).as("its transaction rolled back: not replayed, run again").isEqualTo("paid after the rollback");
            assertThat(retry.header(REPLAYED_HEADER)).isNull();
            assertThat(server.executions()).isEqualTo(2);
        });
    }

    /**
     * An asynchronous method that failed inside its transaction (it threw, or resumed with an
     * exception), which rolled back: its work is over, so the rollback gives the key back at once,
     * whatever the container then answers (an unmapped exception's {@code 500}).
     */
    @Test
    void anAsyncMethodThatFailedInItsTransactionIsGivenBackByTheRollback() {
        withJta(jta -> {
            Server server = library.server("create", true, true);
            Request first = payment();
            jta.begin();
            FakeRequests.Server.Exchange exchange = server.start(first);
            exchange.runWithoutAnswering(requestBody -> {
                new TransactionBinding(new TransactionGuard()).releaseAfterFailure(first.claim()); // as the interceptor does
                return null;
            });
            jta.rollback();
            exchange.resume(Response.serverError().build());

            Answer retry = server.send(payment(), answering(201, "paid"));
            assertThat(retry.status).as(retry.toString()).isEqualTo(201);
            assertThat(server.executions()).isEqualTo(2);
        });
    }

    /** A retry of a payment made whose answer was not stored: told so ({@code 410}), never paid again. */
    private void assertPaidOnceAndNotStored(Server server) {
        Answer retry = server.send(payment(), answering(201, "paid: receipt 43"));
        assertThat(retry.status).as("the payment was made: it is not made again").isEqualTo(410);
        assertThat(retry.problemType()).isEqualTo("response-not-stored");
        assertThat(retry.problem().getString("detail")).contains("status 201");
        assertThat(server.executions()).isEqualTo(1);
        assertThat(library.store.calls("release")).isZero();
    }

    /** Runs a test with the in-JVM stand-in for the server's transactions reachable, as on a server. */
    private static void withJta(Consumer<FakeJta> test) {
        FakeJta.install();
        try {
            test.accept(FakeJta.INSTANCE);
        } finally {
            FakeJta.INSTANCE.forget();
            FakeJta.uninstall();
        }
    }

    @Test
    void aServerErrorIsStoredAndReplayedWhereServerErrorsArePinned() {
        Server server = library.server("createPinningServerErrors");

        server.send(payment(), answering(502, "upstream failed"));
        Answer retry = server.send(payment(), answering(201, "paid"));

        assertThat(retry.status).isEqualTo(502);
        assertThat(retry.text()).isEqualTo("upstream failed");
        assertThat(retry.header(REPLAYED_HEADER)).isEqualTo("true");
        assertThat(server.executions()).isEqualTo(1);
    }

    @Test
    void aServerErrorAfterTheWorkCommittedIsStoredNotReleased() {
        Server server = library.server("create");

        Request first = payment();
        server.send(first, requestBody -> {
            // the interceptor marked the work executed in the transaction that committed
            assertThat(first.claim().markExecuted()).isTrue();
            return Response.status(500).entity("committed, then failed").build();
        });
        Answer retry = server.send(payment(), answering(201, "paid twice"));

        assertThat(retry.status).as("its writes are in: it never runs again").isEqualTo(500);
        assertThat(retry.text()).isEqualTo("committed, then failed");
        assertThat(server.executions()).isEqualTo(1);
        assertThat(library.store.calls("release")).isZero();
    }

    @Test
    void anAsyncEndpointsServerErrorKeepsTheKeyInProgressUntilItsLeaseEnds() {
        Server server = library.server("create", true, true);

        Answer timedOut = server.send(payment(), requestBody -> Response.status(503).build());
        Answer meanwhile = server.send(payment(), answering(201, "paid twice"));
        library.elapse(Duration.ofSeconds(10));
        Answer afterTheLease = server.send(payment(), answering(201, "paid after the lease"));

        assertThat(timedOut.status).as("the container's timeout").isEqualTo(503);
        assertThat(meanwhile.status).as("the work may still be running").isEqualTo(409);
        assertThat(afterTheLease.status).isEqualTo(201);
        assertThat(afterTheLease.text()).isEqualTo("paid after the lease");
        assertThat(library.outcomes()).containsExactly(CLAIMED, CONFLICT, CLAIMED, COMPLETED);
    }

    @Test
    void anAsyncEndpointsServerErrorWithABodyIsSentWholeAndKeepsTheKeyInProgress() {
        Server server = library.server("create", true, true);

        Answer failed = server.send(payment(), answering(500, "the payment provider failed"));
        Answer meanwhile = server.send(payment(), answering(201, "paid twice"));

        assertThat(failed.writeFailure).as("the writer interceptor threw").isNull();
        assertThat(failed.status).isEqualTo(500);
        assertThat(failed.text()).isEqualTo("the payment provider failed");
        assertThat(meanwhile.status).as("in progress until its lease ends, as without a body").isEqualTo(409);
        assertThat(library.store.calls("complete")).as("a 5xx is not pinned here").isZero();
    }

    @Test
    void anErrorAnswerBeforeTheMethodWasEnteredReleasesTheKey() {
        Server server = library.server("create");
        Request request = payment();

        Answer unsupported = server.start(request).rejectBeforeTheMethod(
                Response.status(415).entity("unsupported media type").build());
        Answer fixed = server.send(payment(), answering(201, "paid"));

        assertThat(unsupported.status).isEqualTo(415);
        assertThat(request.claim().entered()).isFalse();
        assertThat(fixed.status).isEqualTo(201);
        assertThat(fixed.header(REPLAYED_HEADER)).as("nothing had run: the fixed request runs").isNull();
        assertThat(server.executions()).isEqualTo(1);
        assertThat(library.outcomes()).containsExactly(CLAIMED, RELEASED, CLAIMED, COMPLETED);
    }

    /**
     * A request filter after the key filter answers before the method, with a status that is no
     * error (a maintenance redirect, a {@code 304} from a cache): nothing ran, so nothing is stored,
     * and the request sent again runs.
     */
    @Test
    void anAnswerOfAFilterThatAbortedBeforeTheMethodIsNeverStoredWhateverItsStatus() {
        Server server = library.server("create");

        Answer redirected = server.start(payment()).abortInALaterFilter(
                Response.seeOther(java.net.URI.create("/maintenance")).build());
        Answer again = server.send(payment(), answering(201, "paid"));

        assertThat(redirected.status).isEqualTo(303);
        assertThat(again.status).as("nothing had run: it runs now").isEqualTo(201);
        assertThat(again.header(REPLAYED_HEADER)).isNull();
        assertThat(server.executions()).isEqualTo(1);
    }

    @Test
    void anErrorAnswerOfTheMethodItselfIsStored() {
        Server server = library.server("create");

        server.send(payment(), answering(400, "card declined"));
        Answer retry = server.send(payment(), answering(201, "paid"));

        assertThat(retry.status).isEqualTo(400);
        assertThat(retry.text()).isEqualTo("card declined");
        assertThat(retry.header(REPLAYED_HEADER)).isEqualTo("true");
        assertThat(server.executions()).isEqualTo(1);
    }

    @Test
    void anEndpointTheInterceptorDoesNotSeeStoresItsAnswersErrorsIncludedSinceItCannotTellWhetherTheMethodRan() {
        Server server = library.server("create", false, false);

        server.start(payment()).rejectBeforeTheMethod(Response.status(400).entity("bad amount").build());
        Answer retry = server.send(payment(), answering(201, "paid"));

        assertThat(retry.status).isEqualTo(400);
        assertThat(retry.header(REPLAYED_HEADER)).isEqualTo("true");

        Request other = post("/payments", "{}").key("k-2");
        server.send(other, answering(201, "paid"));
        assertThat(other.claim().entered()).as("unseen by the interceptor").isFalse();
        assertThat(server.send(post("/payments", "{}").key("k-2"), answering(201, "paid twice")).text())
                .as("its success is stored all the same").isEqualTo("paid");
    }

    @Test
    void onAnInstanceTheApplicationCreatedOfABeanClassErrorsAreStoredSinceNoInterceptorSeesIt() {
        Server server = library.server("create");

        server.send(payment().onTheApplicationsOwnInstance(), answering(402, "card declined"));
        Answer retry = server.send(payment().onTheApplicationsOwnInstance(), answering(201, "paid"));
        Answer refusedBeforeOnACdiInstance = server.start(post("/payments", "{}").key("k-2"))
                .rejectBeforeTheMethod(Response.status(400).entity("bad amount").build());
        Answer fixed = server.send(post("/payments", "{}").key("k-2"), answering(201, "paid"));

        assertThat(retry.status).isEqualTo(402);
        assertThat(retry.header(REPLAYED_HEADER)).as("the declined payment is the method's answer").isEqualTo("true");
        assertThat(refusedBeforeOnACdiInstance.status).isEqualTo(400);
        assertThat(fixed.header(REPLAYED_HEADER)).as("on CDI's instance, an error before the method still releases")
                .isNull();
        assertThat(server.executions()).isEqualTo(2);
    }

    @Test
    void anAnswerWithoutABodyIsStoredByTheResponseFilterAlone() {
        Server server = library.server("create");

        Answer first = server.send(payment(), requestBody -> Response.noContent().header("ETag", "\"v7\"").build());
        Answer retry = server.send(payment(), answering(201, "paid"));

        assertThat(first.status).isEqualTo(204);
        assertThat(retry.status).isEqualTo(204);
        assertThat(retry.body).isEmpty();
        assertThat(retry.header("ETag")).isEqualTo("\"v7\"");
        assertThat(retry.header(REPLAYED_HEADER)).isEqualTo("true");
        assertThat(server.executions()).isEqualTo(1);
    }

    @Test
    void aBodyLargerThanTheStoredBodyLimitIsSentWholeButRecordedWithoutIt() {
        library.config.put("idempotency.max-stored-body-size", "16");
        Server server = library.server("create");
        String large = "0123456789".repeat(10);

        Answer first = server.send(payment(), requestBody -> Response.status(201).entity(large)
                .header("Location", "/payments/1").header("ETag", "\"v1\"").build());
        Answer retry = server.send(payment(), answering(201, "paid twice"));

        assertThat(first.text()).as("the client gets every byte").isEqualTo(large);
        assertThat(retry.status).isEqualTo(410);
        assertThat(retry.problemType()).isEqualTo("response-not-stored");
        assertThat(retry.problem().getString("detail")).contains("status 201");
        assertThat(retry.header("Location")).as("where the created resource is").isEqualTo("/payments/1");
        assertThat(retry.header("ETag")).isNull();
        assertThat(retry.header(REPLAYED_HEADER)).isEqualTo("true");
        assertThat(server.executions()).isEqualTo(1);
        assertThat(library.outcomes()).containsExactly(CLAIMED, COMPLETED, OUTCOME_LOST);
    }

    @Test
    void aBodyOfExactlyTheStoredBodyLimitIsStored() {
        library.config.put("idempotency.max-stored-body-size", "16");
        Server server = library.server("create");

        server.send(payment(), answering(201, "0123456789abcdef"));
        Answer retry = server.send(payment(), answering(201, "paid twice"));

        assertThat(retry.status).isEqualTo(201);
        assertThat(retry.text()).isEqualTo("0123456789abcdef");
    }

    @Test
    void aWriterFailingMidWayAfterTheMethodReturnedNeverLetsARetryRunItAgain() {
        Server server = library.server("create");

        Answer broken = server.start(payment()).finishWithWriterFailingAfter(10, answering(201, "paid: receipt 42"));
        Answer retry = server.send(payment(), answering(201, "paid: receipt 43"));

        assertThat(broken.writeFailure).as("thrown on to the container").hasMessageContaining("broken pipe");
        assertThat(broken.body).as("the bytes are held back until the outcome is stored").isEmpty();
        assertThat(retry.status).as("the payment was made: it is not made again").isEqualTo(410);
        assertThat(retry.problemType()).isEqualTo("response-not-stored");
        assertThat(retry.problem().getString("detail")).contains("status 201");
        assertThat(server.executions()).isEqualTo(1);
        assertThat(library.store.calls("release")).isZero();
    }

    /**
     * The method answered {@code 201}, but its body never reached the writer interceptors: RESTEasy
     * found no writer for the entity and the type the client accepts, and answered {@code 500}
     * through the response filters again (Jersey does the same when an application's writer
     * interceptor or response filter throws first). The payment was made: the server error must not
     * give the key back.
     */
    @Test
    void aServerErrorAfterTheMethodAnsweredButBeforeItsBodyWasWrittenNeverLetsARetryRunItAgain() {
        Server server = library.server("create");

        Answer failed = server.start(payment()).finishWithoutWritingThenAnswer(answering(201, "paid: receipt 42"),
                Response.serverError().build());
        assertThat(failed.status).isEqualTo(500);
        assertPaidOnceAndNotStored(server);
    }

    /**
     * The method answered {@code 201}; an application's response filter running before the
     * recorder's threw, and the container answered {@code 500} through the filters again. The
     * recorder never saw the {@code 201}: it took the {@code 500} for the method's failure and gave
     * the key back, and the retry paid again.
     */
    @Test
    void aServerErrorFromAnEarlierResponseFilterAfterTheMethodAnsweredNeverLetsARetryRunItAgain() {
        Server server = library.server("create");

        Answer failed = server.start(payment()).finishWithAnEarlierResponseFilterFailing(answering(201, "paid: receipt 42"),
                Response.serverError().entity("filter failed").build());
        assertThat(failed.status).isEqualTo(500);
        assertPaidOnceAndNotStored(server);
    }

    /** As above, for work committed in its transaction: the container's error page is not its answer. */
    @Test
    void aServerErrorFromAnEarlierResponseFilterIsNotStoredAsTheAnswerOfWorkThatCommitted() {
        withJta(jta -> {
            Server server = library.server("create");
            Request first = payment();
            jta.begin();
            Answer failed = server.start(first).finishWithAnEarlierResponseFilterFailing(requestBody -> {
                assertThat(first.claim().markExecuted()).isTrue(); // as the interceptor does in the transaction
                return Response.status(201).entity("paid").build();
            }, Response.serverError().entity("filter failed").build());
            assertThat(jta.commit()).isTrue();

            assertThat(failed.status).isEqualTo(500);
            assertPaidOnceAndNotStored(server);
        });
    }

    @Test
    void aWriterFailingAfterPartOfAnUnstorableBodyWasSentNeverLetsARetryRunAgain() {
        library.config.put("idempotency.max-stored-body-size", "16");
        Server server = library.server("create");
        byte[] large = new byte[100];
        Arrays.fill(large, (byte) 'x');

        Answer broken = server.start(payment()).finishWithWriterFailingAfter(50,
                requestBody -> Response.status(201).entity(large).build());
        Answer retry = server.send(payment(), answering(201, "paid twice"));

        assertThat(broken.writeFailure).isNotNull();
        assertThat(broken.body.length).as("part of the answer reached the client").isGreaterThan(16);
        assertThat(retry.status).as("recorded before the first byte left").isEqualTo(410);
        assertThat(retry.problemType()).isEqualTo("response-not-stored");
        assertThat(server.executions()).isEqualTo(1);
        assertThat(library.store.calls("release")).isZero();
    }

    @Test
    void theReplayOfAnAnswerIsItselfNeverRecordedAgain() {
        Server server = library.server("create");
        server.send(payment(), answering(201, "paid"));

        server.send(payment(), answering(201, "paid twice"));
        server.send(payment(), answering(201, "paid thrice"));

        assertThat(library.store.calls("complete")).isEqualTo(1);
        String key = ScopedKey.of(FakeRequests.endpoint("create", false, true).policy(), null, "k-1");
        assertThat(library.memory.find(key).orElseThrow().outcome().body())
                .isEqualTo("paid".getBytes(StandardCharsets.UTF_8));
    }
}
