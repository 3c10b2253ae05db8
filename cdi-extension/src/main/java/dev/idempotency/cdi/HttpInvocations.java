package dev.idempotency.cdi;

import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.interceptor.InvocationContext;

import dev.idempotency.claim.HttpClaim;
import dev.idempotency.claim.TransactionBinding;

/**
 * Runs a JAX-RS resource method under the claim its request's filter acquired: a failure
 * releases the claim (so that a retry runs again, even when a mapper turns the exception into a
 * 4xx), and so does a failed stage or an {@code AsyncResponse} resumed with an exception
 * ({@link ReleasingAsyncResponse}); work that returned is bound to its transaction ({@link TransactionBinding}). The
 * response side stores the outcome.
 */
@ApplicationScoped
public class HttpInvocations {

    @Inject
    IdempotencyRuntime runtime;

    /**
     * @param context the intercepted invocation
     * @param claim the request's claim
     * @return the method's result, or a stage that completes after a failure released the claim
     * @throws Exception whatever the method throws, unchanged
     */
    public Object invoke(InvocationContext context, HttpClaim claim) throws Exception {
        TransactionBinding binding = runtime.transactionBinding();
        if (claim.asyncEndpoint()) {
            Object[] replaced = ReleasingAsyncResponse.around(context.getParameters(), claim, binding);
            if (replaced != null) {
                context.setParameters(replaced);
            }
        }
        Object result = binding.run(claim, context::proceed);
        boolean stage = result instanceof CompletionStage<?>;
        // Mark the work done unless it goes on after the method returned (an async endpoint, a
        // stage) or its answer releases the claim (a 5xx Response).
        binding.bind(claim, !stage && !claim.asyncEndpoint() && !claim.releasedBy(result), null);
        if (!stage && !claim.asyncEndpoint()) {
            claim.returned(result); // the method ran, whatever the container answers in its place
        }
        if (stage) {
            CompletionStage<?> released = TransactionBinding.releasedOnFailure(claim, (CompletionStage<?>) result);
            return context.getMethod().getReturnType().isInstance(released) ? released : result;
        }
        return result;
    }
}
