package dev.idempotency.cdi;

import jakarta.enterprise.context.ContextNotActiveException;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

import dev.idempotency.Idempotent;
import dev.idempotency.claim.HttpClaim;
import dev.idempotency.invocation.MethodPlan;

/**
 * The {@code @Idempotent} interceptor, a dispatcher. Its priority comes from
 * {@code idempotency.interceptor.priority} (the extension adds it): by default inside
 * {@code @Transactional}, so that a store joining the transaction records the effect with the
 * business rows.
 *
 * <p>On a JAX-RS resource method the filter has already claimed the request (one claim per
 * request): {@link HttpInvocations} runs it under that claim. On a method with
 * {@code @IdempotencyKey} parameters {@link MethodInvocations} does the claiming itself; other
 * methods of an annotated class just proceed.
 */
@Idempotent
@Interceptor
public class IdempotencyInterceptor {

    @Inject
    CurrentHttpClaim currentHttpClaim;

    @Inject
    IdempotencyExtension extension;

    @Inject
    HttpInvocations httpInvocations;

    @Inject
    MethodInvocations methodInvocations;

    @AroundInvoke
    Object aroundInvoke(InvocationContext context) throws Exception {
        HttpClaim claim = httpClaim(context);
        if (claim != null) {
            return httpInvocations.invoke(context, claim);
        }
        MethodPlan plan = extension.plan(context.getTarget().getClass(), context.getMethod());
        return plan == null ? context.proceed() : methodInvocations.invoke(context, plan);
    }

    private HttpClaim httpClaim(InvocationContext context) {
        try {
            return currentHttpClaim.take(context.getMethod(), context.getTarget());
        } catch (ContextNotActiveException e) {
            return null; // not inside a request: no HTTP claim
        }
    }
}
