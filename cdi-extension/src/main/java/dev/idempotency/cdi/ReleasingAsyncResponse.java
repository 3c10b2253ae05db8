package dev.idempotency.cdi;

import java.util.Collection;
import java.util.Date;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.TimeoutHandler;

import dev.idempotency.claim.HttpClaim;
import dev.idempotency.claim.TransactionBinding;
import dev.idempotency.spi.StoredOutcome;

/**
 * The {@code @Suspended AsyncResponse} an asynchronous resource method gets, in front of the
 * container's: {@link #resume(Throwable)} is the asynchronous form of a method that throws, so it
 * ends the request's claim as a synchronous method's failure does first
 * ({@link TransactionBinding#releaseAfterFailure}: released, so that a retry runs again even when a
 * mapper turns the exception into a {@code 4xx}; inside a transaction, decided by its end); then the
 * container answers as it would. Except once the response timed out: a timeout handler's answer
 * (a {@code 503} made of an exception, often through the captured response, on its thread or
 * another) comes while the work still runs, so the key stays in progress until its lease ends, as
 * for the container's own timeout answer; unless the handler gave the work more time
 * ({@code setTimeout}) and answered nothing. A value the
 * work resumes with after the container answered already (the timeout's {@code 503}, a cancel) is
 * recorded as an answer without its body: the work is done, and must not run again after the lease.
 * Every other call goes to the container's unchanged.
 */
final class ReleasingAsyncResponse implements AsyncResponse {

    private final AsyncResponse container;
    private final HttpClaim claim;
    private final TransactionBinding binding;
    /**
     * Set once the container reported the timeout: what is resumed with an exception after it (by
     * the handler, on its thread or another) is the timeout's answer while the work still runs;
     * cleared when the handler gave the work more time ({@code setTimeout}) and answered nothing.
     */
    private volatile boolean timedOut;
    /** The thread running the timeout handler, while it does: a late answer it loses is not the work's. */
    private volatile Thread handling;
    /** Whether the timeout handler running now gave the work more time. */
    private volatile boolean extended;

    ReleasingAsyncResponse(AsyncResponse container, HttpClaim claim, TransactionBinding binding) {
        this.container = container;
        this.claim = claim;
        this.binding = binding;
    }

    /**
     * @param parameters a resource method's arguments
     * @param claim its request's claim
     * @param binding the claim's binding to the transaction a failure happens in
     * @return the arguments with each {@code AsyncResponse} put behind one that releases the claim
     *     when resumed with an exception, or {@code null} when there is none
     */
    static Object[] around(Object[] parameters, HttpClaim claim, TransactionBinding binding) {
        Object[] replaced = null;
        for (int i = 0; i < parameters.length; i++) {
            if (parameters[i] instanceof AsyncResponse response && !(response instanceof ReleasingAsyncResponse)) {
                if (replaced == null) {
                    replaced = parameters.clone();
                }
                replaced[i] = new ReleasingAsyncResponse(response, claim, binding);
            }
        }
        return replaced;
    }

    @Override
    public boolean resume(Object response) {
        boolean resumed = container.resume(response);
        if (!resumed && handling != Thread.currentThread() && claim.isOpen() && !claim.answeredAfterRollback()) {
            // The work is done, but the container had answered already (its timeout's 503, which
            // kept the key in progress; a cancel): recorded without the answer's body, so that no
            // retry takes the key over after the lease and runs the work a second time (unless its
            // transaction rolled back: then it is given back now).
            StoredOutcome unsent = claim.resumedTooLate(response,
                    "the container had answered already (a timeout, a cancel) when the work resumed with its answer");
            if (unsent != null) {
                binding.storeWhenCommitted(claim, unsent);
            }
        }
        return resumed;
    }

    @Override
    public boolean resume(Throwable response) {
        if (!timedOut) {
            // Before the answer leaves: a retry that follows it must find the key free. (A key taken
            // over meanwhile was marked rollback-only in its transaction: nothing more to say to a
            // container.)
            binding.releaseAfterFailure(claim);
        }
        return container.resume(response);
    }

    @Override
    public boolean cancel() {
        return container.cancel();
    }

    @Override
    public boolean cancel(int retryAfter) {
        return container.cancel(retryAfter);
    }

    @Override
    public boolean cancel(Date retryAfter) {
        return container.cancel(retryAfter);
    }

    @Override
    public boolean isSuspended() {
        return container.isSuspended();
    }

    @Override
    public boolean isCancelled() {
        return container.isCancelled();
    }

    @Override
    public boolean isDone() {
        return container.isDone();
    }

    @Override
    public boolean setTimeout(long time, TimeUnit unit) {
        if (handling == Thread.currentThread()) {
            extended = true;
        }
        return container.setTimeout(time, unit);
    }

    @Override
    public void setTimeoutHandler(TimeoutHandler handler) {
        container.setTimeoutHandler(handler == null ? null : timedOutResponse -> {
            timedOut = true;
            extended = false;
            handling = Thread.currentThread();
            try {
                handler.handleTimeout(this);
            } finally {
                handling = null;
                // A handler that gave the work more time answered nothing: the work's own failure
                // after it is a failure like any other.
                if (extended && container.isSuspended()) {
                    timedOut = false;
                }
            }
        });
    }

    @Override
    public Collection<Class<?>> register(Class<?> callback) {
        return container.register(callback);
    }

    @Override
    public Map<Class<?>, Collection<Class<?>>> register(Class<?> callback, Class<?>... callbacks) {
        return container.register(callback, callbacks);
    }

    @Override
    public Collection<Class<?>> register(Object callback) {
        return container.register(callback);
    }

    @Override
    public Map<Class<?>, Collection<Class<?>>> register(Object callback, Object... callbacks) {
        return container.register(callback, callbacks);
    }
}
