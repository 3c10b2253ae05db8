package dev.idempotency.jaxrs.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;

import dev.idempotency.claim.HttpClaim;
import dev.idempotency.claim.TransactionBinding;
import dev.idempotency.config.LibrarySettings;
import dev.idempotency.internal.Messages;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.spi.support.TransactionGuard;

/**
 * The response side of the contract, and the endpoint's last request filter (which notes that no
 * filter answered in the method's stead). A 5xx answer releases the claim (unless pinned, or the
 * work was marked executed in its committed transaction: then it is stored), and so does an answer
 * given before the resource method ran (by a request filter, whatever its status; an error after
 * the filters, when the interceptor can tell); any other
 * answer is stored: at once when it has no body, else by the writer interceptor, which holds the
 * exact body bytes back until the outcome is stored, then sends them. An answer whose body the
 * writer could not write (its entity failed to serialise) is stored without its body: the
 * method's work is done, and retries are told so ({@code 410}) instead of running it again; so is
 * an answer picked for storing whose body never reached the writer interceptor (the container
 * answered again, an error, before writing it).
 */
public final class OutcomeRecorder implements ContainerRequestFilter, ContainerResponseFilter, WriterInterceptor {

    private static final Logger LOG = Logger.getLogger(OutcomeRecorder.class.getName());

    private final ReplayableHeaders replayableHeaders;
    private final int maxStoredBodySize;
    private final boolean knowsWhetherMethodRan;
    private final Class<?> resourceClass;
    private final TransactionBinding transactions;

    /**
     * @param settings the library settings
     * @param endpoint the resource method whose answers this records
     * @param transactions where an answer written inside a running transaction waits for its end
     */
    public OutcomeRecorder(LibrarySettings settings, HttpEndpoint endpoint, TransactionBinding transactions) {
        this.replayableHeaders = new ReplayableHeaders(settings.storedHeaders());
        this.maxStoredBodySize = settings.maxStoredBodySize();
        this.knowsWhetherMethodRan = endpoint.intercepted();
        this.resourceClass = endpoint.resourceClass();
        this.transactions = transactions;
    }

    /**
     * The last request filter of the endpoint: the request got through every filter (none answered
     * it before the method).
     */
    @Override
    public void filter(ContainerRequestContext request) {
        HttpClaim claim = AdmittedClaims.of(request);
        if (claim != null) {
            claim.markPassedFilters();
            if (!knowsWhetherMethodRan || createdByTheApplication(request)) {
                claim.markRunsUnseen();
            }
        }
    }

    /**
     * @return whether JAX-RS matched an instance of the resource class itself, which CDI did not
     *     create: CDI hands out a subclass (an intercepted instance or a client proxy) for a class
     *     whose methods carry an interceptor binding. Jersey and RESTEasy create the instance
     *     before the post-matching filters run.
     */
    private boolean createdByTheApplication(ContainerRequestContext request) {
        List<Object> matched = request.getUriInfo().getMatchedResources();
        return !matched.isEmpty() && matched.get(0).getClass() == resourceClass;
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        HttpClaim claim = AdmittedClaims.of(request);
        if (claim == null || !claim.isOpen()) {
            return;
        }
        int status = response.getStatus();
        if (claim.asyncEndpoint() && status < 500 && claim.answeredAfterRollback()) {
            return; // its transaction rolled back: nothing happened, and the work has answered now
        }
        // The method's answer was picked for storing, and the container answers again before its
        // body reached this writer interceptor (RESTEasy found no writer for the entity; an outer
        // writer interceptor or a later response filter threw).
        StoredOutcome unwritten = claim.unwrittenAnswer("the container answered " + status + " before the body was written");
        if (unwritten != null) {
            transactions.storeWhenCommitted(claim, unwritten);
            return;
        }
        // The method returned an answer this filter never saw: an application's response filter
        // before this one threw, and the container answers with its error instead.
        StoredOutcome replaced = claim.answerReplacedBy(status);
        if (replaced != null) {
            notWritten(claim, replaced);
            return;
        }
        if (!claim.passedFilters()
                || (knowsWhetherMethodRan && !claim.runsUnseen() && !claim.entered() && status >= 400)) {
            // Answered before the method ran: by a later request filter, whatever the status (a
            // maintenance redirect, a cache's 304), or with an error (unreadable body, 415):
            // nothing happened, so the client may fix the request and retry with the same key.
            // After the filters, only errors, and only where the interceptor sees the method: on
            // an instance CDI did not create (a class that is no bean, or one the application
            // created, Application.getSingletons()) its 4xx may be its answer (a declined
            // payment), stored like any other.
            claim.release();
        } else if (status >= 500 && !claim.policy().pinServerErrors() && !claim.executed()
                && !threwInARunningTransaction(claim)) {
            if (!claim.asyncEndpoint()) {
                claim.release();
            }
            // An async endpoint's 5xx may be the container's timeout while the work still runs:
            // the claim stays in progress until its lease ends (a failure the interceptor saw has
            // released it already).
        } else if (response.hasEntity()) {
            claim.status(status);
        } else {
            transactions.storeWhenCommitted(claim, StoredOutcome.of(status, replayableHeaders.select(response.getHeaders(), null), new byte[0]));
        }
    }

    @Override
    public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
        HttpClaim claim = AdmittedClaims.of(context);
        // No status noted: the response filter did not pick this answer for storing (an async
        // endpoint's 5xx, which leaves the key in progress): its body goes out as it is.
        if (claim == null || !claim.isOpen() || claim.status() == 0) {
            context.proceed();
            return;
        }
        OutputStream original = context.getOutputStream();
        CapturingOutputStream capture = new CapturingOutputStream(original, maxStoredBodySize, () -> {
            // Recorded before any byte leaves: a retry must never run a method whose answer was sent.
            LOG.warning(Messages.responseTooLargeToStore(claim.policy().endpoint(), maxStoredBodySize));
            transactions.storeWhenCommitted(claim, StoredOutcome.withoutBody(claim.status(),
                    replayable(context, claim)));
        });
        context.setOutputStream(capture);
        try {
            context.proceed();
        } catch (IOException | RuntimeException | Error e) {
            // The method returned this answer, and its writer failed before a byte left (an
            // overflowing body's outcome was handed over before its first byte: nothing to do): the
            // work is done, so a retry must not run it again (and fail the same way, each time).
            // Work marked executed in the transaction that committed it keeps its mark (retries are
            // told the response was lost, as after a crash); any other is recorded as an answer
            // whose body was not stored, and so is work marked in a transaction still running (one
            // spanning the request), whose rollback must still give the key back.
            if (!capture.overflowed() && claim.isOpen()) {
                LOG.warning(Messages.responseNotWritten(claim.policy().endpoint(), claim.status(), e));
                notWritten(claim, StoredOutcome.withoutBody(claim.status(), replayable(context, claim)));
            }
            throw e;
        } finally {
            context.setOutputStream(original);
        }
        if (!capture.overflowed()) {
            transactions.storeWhenCommitted(claim, StoredOutcome.of(claim.status(),
                    replayable(context, claim), capture.heldBytes()));
            capture.release();
        }
    }

    /**
     * @return whether a synchronous method threw inside a transaction that still runs (one spanning
     *     the request): its end decides, not the status a mapper gave the failure. The transaction
     *     may commit despite the exception (its executed mark is made just before the commit), and
     *     then the mapped answer is the work's; a rollback gives the key back. Released now, the key
     *     was free behind committed work.
     */
    private boolean threwInARunningTransaction(HttpClaim claim) {
        TransactionGuard running = transactions.transactions();
        return claim.entered() && !claim.asyncEndpoint() && !claim.returnedAnAnswer()
                && (running.active() || running.markedRollbackOnly());
    }

    /**
     * Ends the claim of work done whose answer was not written: recorded as an answer without its
     * body; but work marked executed in the transaction that committed it keeps its mark (retries
     * are told the response was lost, as after a crash), unless that transaction still runs (one
     * spanning the request), whose rollback must still give the key back.
     */
    private void notWritten(HttpClaim claim, StoredOutcome withoutBody) {
        if (!claim.executed() || transactions.transactions().active()) {
            transactions.storeWhenCommitted(claim, withoutBody);
        } else {
            claim.release();
        }
    }

    /**
     * @return the headers of the answer being written that retries get with it; and its
     *     {@code Content-Encoding} where the method encoded the bytes itself (captured encoded:
     *     without it a replay's bytes could not be read)
     */
    private Map<String, List<String>> replayable(WriterInterceptorContext context, HttpClaim claim) {
        Map<String, List<String>> selected = replayableHeaders.select(context.getHeaders(), context.getMediaType());
        String encoding = claim.encodedByTheMethod();
        Object written = context.getHeaders().getFirst(HttpHeaders.CONTENT_ENCODING);
        if (encoding != null && written != null && encoding.equals(written.toString())) {
            selected = new LinkedHashMap<>(selected);
            selected.put(HttpHeaders.CONTENT_ENCODING, List.of(encoding));
        }
        return selected;
    }
}
