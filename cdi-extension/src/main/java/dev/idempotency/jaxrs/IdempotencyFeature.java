package dev.idempotency.jaxrs;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.Map;
import java.util.concurrent.CompletionStage;

import jakarta.enterprise.inject.spi.CDI;
import jakarta.ws.rs.ConstrainedTo;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.RuntimeType;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;
import jakarta.ws.rs.ext.WriterInterceptor;

import dev.idempotency.cdi.IdempotencyRuntime;
import dev.idempotency.config.PolicyResolver;
import dev.idempotency.internal.Messages;
import dev.idempotency.jaxrs.internal.AdmittedClaims;
import dev.idempotency.jaxrs.internal.CallerNote;
import dev.idempotency.jaxrs.internal.HttpEndpoint;
import dev.idempotency.jaxrs.internal.HttpServices;
import dev.idempotency.jaxrs.internal.IdempotencyKeyFilter;
import dev.idempotency.jaxrs.internal.OutcomeRecorder;

/**
 * Attaches the idempotency filters to {@code @Idempotent} resource methods only; other endpoints
 * pay nothing but the note of the caller every request gets ({@link CallerNote}, a request property
 * set as a request comes in and once more as its request filters end, which this feature registers
 * for the whole application). Runs once per resource method when the application starts, so
 * policies are resolved (and bad values fail the start) before the first request.
 */
@Provider
@ConstrainedTo(RuntimeType.SERVER)
public class IdempotencyFeature implements DynamicFeature, Feature {

    /** After authentication, authorization and the application's own request filters. */
    static final int KEY_FILTER_PRIORITY = Priorities.USER + 500;

    /** Response filters run highest first: a low value runs after the application's ones. */
    static final int RESPONSE_FILTER_PRIORITY = 100;

    /** Request filters run lowest first: the recorder's runs last, once every other let the request through. */
    static final int LAST_REQUEST_FILTER_PRIORITY = Integer.MAX_VALUE;

    /** Writer interceptors run lowest first: a high value sees the entity before any encoder. */
    static final int WRITER_INTERCEPTOR_PRIORITY = Priorities.USER + 1000;

    /**
     * Registers, for the whole application, the note of each request that gives the beans its
     * resources call the request's JAX-RS caller ({@link CallerNote}).
     *
     * @param context the application's configuration
     * @return {@code true}: enabled
     */
    @Override
    public boolean configure(FeatureContext context) {
        context.register(CallerNote.class);
        context.register(CallerNote.Settled.class);
        return true;
    }

    @Override
    public void configure(ResourceInfo resourceInfo, FeatureContext context) {
        Class<?> resourceClass = resourceInfo.getResourceClass();
        Method method = resourceInfo.getResourceMethod();
        if (resourceClass == null || method == null || PolicyResolver.annotationOf(resourceClass, method).isEmpty()) {
            return;
        }
        IdempotencyRuntime runtime = CDI.current().select(IdempotencyRuntime.class).get();
        HttpEndpoint endpoint = new HttpEndpoint(runtime.policy(resourceClass, method), resourceClass, method, isAsync(method),
                runtime.isIntercepted(resourceClass));
        HttpServices services = new HttpServices(runtime.store(), runtime.settings(), runtime.replayCache(),
                runtime.outcomeEvents(), runtime.tokens(), new AdmittedClaims(runtime.currentHttpClaim()),
                runtime.tenants(), runtime.waits(), runtime.releaseRetries());
        context.register(new IdempotencyKeyFilter(services, endpoint), KEY_FILTER_PRIORITY);
        context.register(new OutcomeRecorder(runtime.settings(), endpoint, runtime.transactionBinding()), Map.of(
                ContainerRequestFilter.class, LAST_REQUEST_FILTER_PRIORITY,
                ContainerResponseFilter.class, RESPONSE_FILTER_PRIORITY,
                WriterInterceptor.class, WRITER_INTERCEPTOR_PRIORITY));
    }

    private static boolean isAsync(Method method) {
        Class<?> returned = method.getReturnType();
        if (CompletionStage.class.isAssignableFrom(returned)) {
            if (returned != CompletionStage.class && returned != java.util.concurrent.CompletableFuture.class) {
                // The interceptor hands back a stage that completes after a failure released the
                // key; it must fit the declared type.
                throw new dev.idempotency.exceptions.IdempotencyDefinitionException(Messages.unsupportedReturnType(
                        Messages.where(method.getDeclaringClass(), method),
                        method.getGenericReturnType().getTypeName(),
                        "only CompletionStage and CompletableFuture stages can be completed later"));
            }
            return true;
        }
        for (Parameter parameter : method.getParameters()) {
            if (parameter.isAnnotationPresent(Suspended.class)) {
                return true;
            }
        }
        return false;
    }
}
