package dev.idempotency.cdi;

import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ContextNotActiveException;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

import dev.idempotency.Idempotent;
import dev.idempotency.invocation.MethodPlan;
import dev.idempotency.claim.HttpClaim;

/**
 * The {@code @Idempotent} interceptor. Its priority comes from
 * {@code idempotency.interceptor.priority} (the extension adds it): by default inside
 * {@code @Transactional}, so that a store joining the transaction records the effect with the
 * business rows.
 *
 * <p>On a JAX-RS resource method the filter has already claimed the request (one claim per
 * request): the interceptor only proceeds, and releases the claim when the method throws (or its
 * {@code CompletionStage} fails), so that a retry runs again even when a mapper turns the
 * exception into a 4xx. On a method with {@code @IdempotencyKey} parameters it does the claiming
 * itself ({@link MethodInvocations}); on other methods of an annotated class it only proceeds.
 */
@Idempotent
@Interceptor
public class IdempotencyInterceptor {

    @Inject
    CurrentHttpClaim currentHttpClaim;

    @Inject
    IdempotencyExtension extension;

    @Inject
    MethodInvocations methodInvocations;

    @Inject
    IdempotencyRuntime runtime;

    @AroundInvoke
    Object aroundInvoke(InvocationContext context) throws Exception {
        HttpClaim claim = httpClaim(context);
        if (claim == null) {
            MethodPlan plan = extension.plan(context.getTarget().getClass(), context.getMethod());
            return plan == null ? context.proceed() : methodInvocations.invoke(context, plan);
        }
        Object result;
        try {
            result = context.proceed();
        } catch (Exception | Error e) {
            if (!claim.releaseAfterFailure(runtime.transactions())) {
                throw claim.takenOver(e);
            }
            throw e;
        }
        // An async endpoint's work goes on after the method returned: nothing to mark yet.
        boolean markable = runtime.transactions().active() && !(result instanceof CompletionStage<?>)
                && !claim.asyncEndpoint() && !claim.releasedBy(result);
        // A rollback after this point (the commit fails) means nothing happened: release, whatever
        // answer an exception mapper then makes of it.
        runtime.transactions().whenTransactionEnds(committed -> {
            if (!committed) {
                claim.releaseAfterRollback();
            }
        });
        // The response is stored after the commit: mark the work done inside the transaction, so
        // that a node stopping in between never lets a retry run it again. If another request
        // took the key over (our lease ran out), this transaction must not commit.
        if (markable && !claim.markExecuted()) {
            runtime.transactions().setRollbackOnly();
            throw claim.takenOver();
        }
        if (result instanceof CompletionStage<?> stage) {
            // Hand the container a stage that completes only after a failure released the claim:
            // dependants of the original stage run in no set order, and a retry must not see it held.
            CompletionStage<?> released = stage.whenComplete((value, failure) -> {
                if (failure != null) {
                    claim.release();
                }
            });
            return context.getMethod().getReturnType().isInstance(released) ? released : result;
        }
        return result;
    }

    private HttpClaim httpClaim(InvocationContext context) {
        try {
            return currentHttpClaim.take(context.getMethod());
        } catch (ContextNotActiveException e) {
            return null; // not inside a request: no HTTP claim
        }
    }
}
