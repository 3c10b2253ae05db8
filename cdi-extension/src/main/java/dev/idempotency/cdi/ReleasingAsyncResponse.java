package dev.idempotency.cdi;

import java.util.Collection;
import java.util.Date;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.TimeoutHandler;

import dev.idempotency.claim.HttpClaim;
import dev.idempotency.claim.TransactionBinding;

/**
 * The {@code @Suspended AsyncResponse} an asynchronous resource method gets, in front of the
 * container's: {@link #resume(Throwable)} is the asynchronous form of a method that throws, so it
 * ends the request's claim as a synchronous method's failure does first
 * ({@link TransactionBinding#releaseAfterFailure}: released, so that a retry runs again even when a
 * mapper turns the exception into a {@code 4xx}; inside a transaction, decided by its end); then the
 * container answers as it would. Except once the response timed out: a timeout handler's answer
 * (a {@code 503} made of an exception, often through the captured response) comes while the work
 * still runs, so the key stays in progress until its lease ends, as for the container's own
 * timeout answer. Every other call goes to the container's unchanged.
 */
final class ReleasingAsyncResponse implements AsyncResponse {

    private final AsyncResponse container;
    private final HttpClaim claim;
    private final TransactionBinding binding;
    /** Set once the container reported the timeout: the work still runs, whatever is resumed after. */
    private volatile boolean timedOut;

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
        return container.resume(response);
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
        return container.setTimeout(time, unit);
    }

    @Override
    public void setTimeoutHandler(TimeoutHandler handler) {
        container.setTimeoutHandler(handler == null ? null : timedOutResponse -> {
            timedOut = true;
            handler.handleTimeout(this);
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
