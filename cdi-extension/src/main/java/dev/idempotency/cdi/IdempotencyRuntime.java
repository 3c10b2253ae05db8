package dev.idempotency.cdi;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Reception;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;

import dev.idempotency.claim.EventPublisher;
import dev.idempotency.claim.InProgressWaits;
import dev.idempotency.claim.ReleaseRetries;
import dev.idempotency.claim.TenantLookup;
import dev.idempotency.claim.TransactionBinding;
import dev.idempotency.config.HttpOperation;
import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.config.LibrarySettings;
import dev.idempotency.config.ResourceMethods;
import dev.idempotency.exceptions.IdempotencyDefinitionException;
import dev.idempotency.internal.Lazy;
import dev.idempotency.internal.Messages;
import dev.idempotency.lookup.RecordLookup;
import dev.idempotency.spi.IdempotencyScopeResolver;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.support.TransactionGuard;
import dev.idempotency.store.ReplayCache;
import dev.idempotency.store.TimedStore;
import dev.idempotency.tokens.TokenRegistry;

/**
 * What the JAX-RS layer needs from CDI, looked up once per resource method at application start:
 * the selected store, the settings and the policies.
 */
@ApplicationScoped
public class IdempotencyRuntime {

    @Inject
    IdempotencyExtension extension;

    @Inject
    IdempotencyStore store;

    @Inject
    CurrentHttpClaim currentHttpClaim;

    @Inject
    BeanManager beanManager;

    private final TransactionGuard transactions = new TransactionGuard();
    private final TransactionBinding transactionBinding = new TransactionBinding(transactions);
    private final Lazy<ReplayCache> replayCache = new Lazy<>(() -> store.keepsRecordsInThisJvm() ? ReplayCache.off()
            : new ReplayCache(settings().replayCacheMaxBytes(), settings().replayCacheTtl(), System::nanoTime));
    /** The OpenTelemetry reporter, resolved once, at the first use after the deployment. */
    private final Lazy<Optional<OpenTelemetryOutcomes>> telemetry = new Lazy<>(() -> extension.telemetryReported()
            ? EventListeners.telemetry(beanManager) : Optional.empty());
    private final Lazy<EventPublisher> outcomeEvents = new Lazy<>(
            () -> EventListeners.resolve(beanManager, extension.metricsCounted(), telemetry.get()));
    /** The selected store, timed where OpenTelemetry reports its latency. */
    private final Lazy<IdempotencyStore> observedStore = new Lazy<>(() -> telemetry.get()
            .<IdempotencyStore>map(reporter -> new TimedStore(store, reporter.storeTimings(settings().slowStoreThreshold())))
            .orElse(store));
    private final Lazy<TokenRegistry> tokens = new Lazy<>(() -> new TokenRegistry(store(), settings().tokenTtl(),
            settings().tokensPerPrincipal(), settings().anonymousTokens()));

    private final Lazy<TenantLookup> tenants = new Lazy<>(this::chooseTenantLookup);
    private final Lazy<InProgressWaits> waits = new Lazy<>(() -> new InProgressWaits(settings().maxWaiting()));
    private final ReleaseRetries releaseRetries = new ReleaseRetries();

    /**
     * @return the selected store (a client proxy), timed where OpenTelemetry is present (decided at
     *     the first use)
     */
    public IdempotencyStore store() {
        return observedStore.get();
    }

    /** @return the guard that ties claims to the caller's JTA transaction */
    public TransactionGuard transactions() {
        return transactions;
    }

    /** @return the rules that tie a claim to the caller's transaction */
    public TransactionBinding transactionBinding() {
        return transactionBinding;
    }

    /**
     * @return the completed records read from the store, kept for the next retries; off for a
     *     store whose records are in this JVM already
     */
    public ReplayCache replayCache() {
        return replayCache.get();
    }

    /**
     * @return where outcomes are reported: resolved once, at the first use after the deployment
     *     (the application's observers are all known then)
     */
    public EventPublisher outcomeEvents() {
        return outcomeEvents.get();
    }

    /** @return where duplicates of a request or call in flight wait for its outcome, on this node */
    public InProgressWaits waits() {
        return waits.get();
    }

    /** @return where a release that the store failed is tried again, in the background */
    public ReleaseRetries releaseRetries() {
        return releaseRetries;
    }

    /**
     * The application stops: failed releases are no longer tried again, and duplicates waiting for
     * a request in flight end their wait, before any bean (the store) is destroyed; only where this
     * runtime exists already.
     */
    void stopRetries(@Observes(notifyObserver = Reception.IF_EXISTS) @BeforeDestroyed(ApplicationScoped.class) Object event) {
        stopWork();
    }

    /** The same, where no such event came (a container that fires none): closing twice does nothing. */
    @PreDestroy
    void stop() {
        stopWork();
    }

    private void stopWork() {
        releaseRetries.close();
        waits.ifBuilt(InProgressWaits::close);
    }

    /** @return the server-issued tokens, kept in the selected store */
    public TokenRegistry tokens() {
        return tokens.get();
    }

    /**
     * @return where the tenant of a tenant-scoped request comes from: chosen once, at the first
     *     use after the deployment (which checked that the source can be had)
     */
    public TenantLookup tenants() {
        return tenants.get();
    }

    private TenantLookup chooseTenantLookup() {
        LibrarySettings settings = settings();
        return switch (settings.tenantSource()) {
            case NONE -> TenantLookup.NONE;
            case HEADER -> TenantLookup.header(settings.tenantHeader());
            case HOST -> TenantLookup.host();
            // loaded only when chosen: the MicroProfile JWT API is optional
            case JWT_CLAIM -> JwtTenantClaim.of(beanManager, settings.tenantJwtClaim());
            case RESOLVER -> resolver();
        };
    }

    /**
     * The application's resolver. The deployment made sure there is one where a bean is tenant-scoped;
     * a resource that is no bean, met later, fails its first request with the same coded message.
     */
    private TenantLookup resolver() {
        Instance<IdempotencyScopeResolver> resolvers = beanManager.createInstance().select(IdempotencyScopeResolver.class);
        if (resolvers.isResolvable()) {
            return TenantLookup.resolver(resolvers.get());
        }
        List<String> beans = beanManager.getBeans(IdempotencyScopeResolver.class).stream()
                .map(bean -> bean.getBeanClass().getName()).sorted().toList();
        String message = Messages.scopeResolverNotResolvable(LibrarySettings.TENANT_SOURCE, beans, "a JAX-RS resource");
        return TenantLookup.resolver(request -> {
            throw new IdempotencyDefinitionException(message);
        });
    }

    /**
     * @return the support look-up over the selected store and every {@code @Idempotent} endpoint known
     *     now (called per support request: support questions are rare, and endpoints of resources that
     *     are no beans become known as JAX-RS starts)
     */
    public RecordLookup recordLookup() {
        return new RecordLookup(store(), extension.policiesByEndpoint(), settings().tenantSource());
    }

    /** @return the library settings */
    public LibrarySettings settings() {
        return extension.settings();
    }

    /** @return the request-scoped holder of the current request's claim (a client proxy) */
    public CurrentHttpClaim currentHttpClaim() {
        return currentHttpClaim;
    }

    /**
     * @param resourceClass the resource class
     * @param method an annotated resource method
     * @return its validated policy
     */
    public IdempotencyPolicy policy(Class<?> resourceClass, Method method) {
        return extension.policy(resourceClass, method);
    }

    /**
     * @return the {@code @Idempotent} resource methods as HTTP operations, for the OpenAPI document
     */
    public List<HttpOperation> httpOperations() {
        List<HttpOperation> operations = new ArrayList<>();
        extension.resourceMethods().forEach(resource -> {
            String httpMethod = ResourceMethods.httpMethod(resource.beanClass(), resource.method());
            if (httpMethod != null) {
                operations.add(new HttpOperation(httpMethod, ResourceMethods.pathTemplate(resource.beanClass(),
                        resource.method()), extension.policy(resource.beanClass(), resource.method())));
            }
        });
        return operations;
    }

    /**
     * @param resourceClass a resource class
     * @return whether the interceptor sees its methods (it is a CDI bean)
     */
    public boolean isIntercepted(Class<?> resourceClass) {
        return extension.isIntercepted(resourceClass);
    }
}
