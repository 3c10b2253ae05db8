package dev.idempotency.claim;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.logging.Logger;

import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;

import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.internal.Messages;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.StoredOutcome;

/**
 * A claim acquired for one HTTP request. Ended by the response filter, the writer interceptor,
 * the CDI interceptor on an exception, or the end of the request, whichever comes first.
 */
public final class HttpClaim extends OwnedClaim {

    private static final Logger LOG = Logger.getLogger(HttpClaim.class.getName());

    private final Class<?> resourceClass;
    private final Method resourceMethod;
    private final boolean asyncEndpoint;
    private volatile int status;
    private volatile boolean entered;
    private volatile boolean passedFilters;
    private volatile boolean runsUnseen;
    /** The status of the answer a synchronous method returned, or {@code 0}. */
    private volatile int returned;
    /** The {@code Content-Encoding} of the Response a synchronous method returned, or {@code null}. */
    private volatile String returnedEncoding;
    /** Whether an asynchronous endpoint's answer reached the response filter. */
    private volatile boolean answered;
    /** Whether the method's transaction rolled back before its asynchronous answer came. */
    private volatile boolean rolledBackBeforeAnswer;

    /**
     * @param store where the claim lives
     * @param policy the endpoint's policy
     * @param resourceClass the resource class JAX-RS matched, whose instance the method runs on
     * @param resourceMethod the resource method that runs under the claim
     * @param asyncEndpoint whether the method answers asynchronously
     * @param key the scoped key
     * @param owner the owner token
     * @param events where the completion and the release are reported
     * @param waits the duplicates waiting on this node, woken when the claim ends
     * @param retries where a release that the store failed is tried again
     */
    public HttpClaim(IdempotencyStore store, IdempotencyPolicy policy, Class<?> resourceClass, Method resourceMethod,
            boolean asyncEndpoint,
            String key, String owner, EventPublisher events, InProgressWaits waits, ReleaseRetries retries) {
        super(store, policy, key, owner, events, waits, retries, true);
        this.resourceClass = resourceClass;
        this.resourceMethod = resourceMethod;
        this.asyncEndpoint = asyncEndpoint;
    }

    /** @return the resource class JAX-RS matched, whose instance the method runs on */
    public Class<?> resourceClass() {
        return resourceClass;
    }

    /** @return the resource method that runs under this claim */
    public Method resourceMethod() {
        return resourceMethod;
    }

    /** @return whether the endpoint answers asynchronously (the request outlives the method call) */
    public boolean asyncEndpoint() {
        return asyncEndpoint;
    }

    /** Notes that the resource method was entered (its parameters were read and it began). */
    public void markEntered() {
        entered = true;
    }

    /** @return whether the resource method was entered */
    public boolean entered() {
        return entered;
    }

    /** Notes that every request filter let the request through (none answered it in the method's stead). */
    public void markPassedFilters() {
        passedFilters = true;
    }

    /**
     * Notes that no interceptor will tell whether the method ran: its class is no bean, or it runs
     * on an instance CDI did not create (one the application handed JAX-RS,
     * {@code Application.getSingletons()}) although its class is one.
     */
    public void markRunsUnseen() {
        runsUnseen = true;
    }

    /** @return whether the method runs on an instance no interceptor sees */
    public boolean runsUnseen() {
        return runsUnseen;
    }

    /**
     * @return whether every request filter let the request through: if not, one answered it
     *     before the resource method could run
     */
    public boolean passedFilters() {
        return passedFilters;
    }

    /**
     * Notes the answer a synchronous resource method returned (called by the interceptor): whatever
     * the container answers after it, the method ran.
     *
     * @param result what it returned: a {@link Response}, an entity ({@code 200}), or
     *     {@code null} ({@code 204})
     */
    public void returned(Object result) {
        returnedEncoding = result instanceof Response response ? response.getHeaderString(HttpHeaders.CONTENT_ENCODING) : null;
        returned = statusOf(result);
    }

    /**
     * @return the {@code Content-Encoding} of the {@link Response} a synchronous method returned
     *     (its entity is bytes it encoded itself, which the library captures as they are), or
     *     {@code null}: an encoding added after the method (an encoder around the capture) leaves
     *     the captured bytes plain
     */
    public String encodedByTheMethod() {
        return returnedEncoding;
    }

    private static int statusOf(Object result) {
        return result instanceof Response response ? response.getStatus() : result == null ? 204 : 200;
    }

    /**
     * An asynchronous endpoint's answer that the container no longer takes (it answered already):
     * the work is done, so it is recorded without its body (logged, {@code IDEMP0325}).
     *
     * @param answer what the work resumed with
     * @param why what happened instead, for the log
     * @return the outcome to store, or {@code null} for a server error (the work failed: nothing to keep)
     */
    public StoredOutcome resumedTooLate(Object answer, String why) {
        int status = statusOf(answer);
        return status >= 500 && !policy().pinServerErrors() ? null : notWritten(status, why);
    }

    /**
     * An asynchronous endpoint's work may go on after its method's transaction rolled back (a call
     * to a payment gateway on another thread): the key is held until it answers, so that a retry
     * does not run it a second time meanwhile, then given back.
     */
    @Override
    public void releaseAfterRollbackOnceAnswered() {
        if (!asyncEndpoint) {
            releaseAfterRollback();
            return;
        }
        rolledBackBeforeAnswer = true;
        if (answered) {
            releaseAfterRollback(); // the answer came first (or at once): released by whichever sees both
        }
    }

    /**
     * Notes that an asynchronous endpoint answered (not with a server error, which may be the
     * container's timeout while the work runs on: that one keeps the key until its lease ends).
     *
     * @return whether the claim was given back for it: its method's transaction had rolled back
     */
    public boolean answeredAfterRollback() {
        answered = true;
        if (rolledBackBeforeAnswer) {
            releaseAfterRollback();
            return true;
        }
        return false;
    }

    /** @return whether the interceptor saw a synchronous method return an answer (it did not throw) */
    public boolean returnedAnAnswer() {
        return returned != 0;
    }

    /**
     * The container's server error in place of the answer the method returned, which never reached
     * the response filter that picks answers for storing (an application's response filter that
     * runs before it threw): the method's work is done, so it is stored without its body, under
     * the method's status (retries get {@code 410 response-not-stored}), instead of the key being
     * released or the error page stored as its answer. Logged ({@code IDEMP0325}).
     *
     * @param status the status the container answers with
     * @return the outcome to store, or {@code null} when this is no such error (or the method's
     *     own answer was a server error)
     */
    public StoredOutcome answerReplacedBy(int status) {
        return status < 500 ? null
                : returnedUnanswered("the container answered " + status + " before the answer reached the response filter");
    }

    /**
     * As {@link #answerReplacedBy}, for a request that ended without the library's response filter
     * having seen the method's answer (the container answered without the filters).
     *
     * @param why what happened instead, for the log
     * @return the outcome to store, or {@code null} when the method returned no answer (or a server error)
     */
    public StoredOutcome returnedUnanswered(String why) {
        int status = returned;
        return status == 0 || status >= 500 ? null : notWritten(status, why);
    }

    /** @return an answer stored without its body, logged ({@code IDEMP0325}) */
    private StoredOutcome notWritten(int status, String why) {
        LOG.warning(Messages.responseNotWritten(policy().endpoint(), status, why));
        return StoredOutcome.withoutBody(status, Map.of());
    }

    /**
     * @param result what the resource method returned
     * @return whether that answer releases the claim: a 5xx {@link Response} on an endpoint that
     *     does not pin server errors says "this failed, run it again", so the work is not marked
     *     executed even if its transaction commits
     */
    public boolean releasedBy(Object result) {
        return result instanceof Response response && response.getStatus() >= 500 && !policy().pinServerErrors();
    }

    /**
     * @return the status of the response the response filter picked for storing with its body,
     *     or {@code 0} when it picked none
     */
    public int status() {
        return status;
    }

    /** @param status the response status, noted until the body has been written */
    public void status(int status) {
        this.status = status;
    }

    /**
     * The answer the response filter picked for storing, whose body was never written (the
     * container answered again first, or the request ended): the method's work is done, so it is
     * stored without its body (retries get {@code 410 response-not-stored}) instead of the key being
     * released. Logged ({@code IDEMP0325}); the picked status is forgotten, so that nothing else
     * takes this answer for one still to be written.
     *
     * @param why what happened instead of the writing, for the log
     * @return the outcome to store, or {@code null} when no answer was picked
     */
    public StoredOutcome unwrittenAnswer(String why) {
        int picked = status;
        if (picked == 0) {
            return null;
        }
        status = 0;
        LOG.warning(Messages.responseNotWritten(policy().endpoint(), picked, why));
        return StoredOutcome.withoutBody(picked, Map.of());
    }
}
