package dev.idempotency.cdi;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.AnnotatedMethod;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.ProcessBean;
import jakarta.enterprise.inject.spi.ProcessManagedBean;
import jakarta.interceptor.Interceptor;

import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.Idempotent;
import dev.idempotency.config.BeanMethod;
import dev.idempotency.config.ConfiguredMembers;
import dev.idempotency.config.ContainerSubclasses;
import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.config.LibrarySettings;
import dev.idempotency.config.PolicyResolver;
import dev.idempotency.config.ResourceMethods;
import dev.idempotency.config.ScopeChecks;
import dev.idempotency.config.TenantSource;
import dev.idempotency.exceptions.IdempotencyDefinitionException;
import dev.idempotency.internal.Messages;
import dev.idempotency.invocation.KeyExtractor;
import dev.idempotency.invocation.MethodPlan;
import dev.idempotency.spi.IdempotencyScopeResolver;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.support.ConfigLookup;
import dev.idempotency.store.InMemoryIdempotencyStore;
import dev.idempotency.tokens.TokenRegistry;

/**
 * The portable extension. The library jar is a bean archive of its own (so the application needs
 * no beans.xml entry, whatever its discovery mode); the extension gives the interceptor its
 * configured priority, reads the library settings and
 * every {@code @Idempotent} method's policy once, at deployment, and fails the deployment with a
 * coded message on a bad value; and it warns when the single-node in-memory store is in use.
 */
public class IdempotencyExtension implements Extension {

    private static final Logger LOG = Logger.getLogger(IdempotencyExtension.class.getName());

    private final Map<BeanMethod, IdempotencyPolicy> policies = new ConcurrentHashMap<>();
    /** The annotated resource methods with their classes, for the OpenAPI document. */
    private final Set<BeanMethod> resourceMethods = ConcurrentHashMap.newKeySet();
    private final Set<Class<?>> interceptedClasses = ConcurrentHashMap.newKeySet();
    private final Set<String> otherStores = ConcurrentHashMap.newKeySet();
    /** The store modules' beans, by class name: both present make the tiered store. */
    private final Map<String, Bean<?>> moduleStores = new ConcurrentHashMap<>();
    /** The plans of the non-HTTP methods, by bean class: from deployment, or built at a first call. */
    private final Map<BeanMethod, Optional<MethodPlan>> plans = new ConcurrentHashMap<>();
    /** Held while a method found after deployment is checked and added (its name against all others'). */
    private final Object firstUses = new Object();
    /**
     * The plans by the class of the intercepted instance (a container's subclass or proxy of the
     * bean class, or the bean class itself), found once per class and method: no reflection per call.
     */
    private final ClassValue<Map<Method, Optional<MethodPlan>>> plansByTargetClass = new ClassValue<>() {
        @Override
        protected Map<Method, Optional<MethodPlan>> computeValue(Class<?> type) {
            return new ConcurrentHashMap<>();
        }
    };
    private volatile LibrarySettings settings;
    private volatile PolicyResolver resolver;
    private volatile boolean metricsCounted;
    private volatile boolean telemetryReported;
    private final boolean jwtApiPresent = ScopeChecks.jwtApiPresent();
    /** The first tenant-scoped method found, for the message when its tenant source cannot be had. */
    private volatile String firstTenantScoped;
    private IdempotencyDefinitionException settingsError;
    /** The config keys naming no member of {@code @Idempotent}, found when the settings are read. */
    private List<ConfiguredMembers.Unknown> unknownMembers = List.of();
    private final List<String> definitionErrors = java.util.Collections.synchronizedList(new java.util.ArrayList<>());

    void readSettings(@Observes BeforeBeanDiscovery event) {
        Config mpConfig = ConfigProvider.getConfig();
        ConfigLookup config = ConfigLookup.of(mpConfig);
        resolver = new PolicyResolver(config);
        unknownMembers = ConfiguredMembers.unknown(mpConfig.getPropertyNames(), name -> rawValue(mpConfig, name));
        try {
            settings = LibrarySettings.load(config);
        } catch (IdempotencyDefinitionException e) {
            settingsError = e;
            settings = LibrarySettings.load(key -> Optional.empty());
        }
        metricsCounted = settings.metricsEnabled() && EventListeners.metricsApiPresent();
        if (metricsCounted) {
            event.addAnnotatedType(MicroProfileMetricsCounters.class, MicroProfileMetricsCounters.class.getName());
        }
        telemetryReported = settings.telemetryEnabled() && EventListeners.telemetryApiPresent();
        if (telemetryReported) {
            event.addAnnotatedType(OpenTelemetryOutcomes.class, OpenTelemetryOutcomes.class.getName());
        }
    }

    /** {@code @Transactional}'s interceptor priority ({@code Interceptor.Priority.PLATFORM_BEFORE + 200}). */
    private static final int TRANSACTIONAL_PRIORITY = 200;

    void prioritizeInterceptor(@Observes ProcessAnnotatedType<IdempotencyInterceptor> event) {
        int priority = settings.interceptorPriority();
        if (priority <= TRANSACTIONAL_PRIORITY) {
            LOG.warning(Messages.interceptorOutsideTransactional(priority));
        }
        event.configureAnnotatedType().add(new PriorityLiteral(priority));
    }

    void trackStores(@Observes ProcessBean<?> event) {
        Bean<?> bean = event.getBean();
        if (bean.getTypes().contains(IdempotencyStore.class) && bean.getBeanClass() != InMemoryIdempotencyStore.class) {
            otherStores.add(bean.getBeanClass().getName());
            if (TieredStoreBean.isLayer(bean.getBeanClass().getName())) {
                moduleStores.put(bean.getBeanClass().getName(), bean);
            }
        }
    }

    void readPolicies(@Observes ProcessManagedBean<?> event) {
        Class<?> beanClass = event.getAnnotatedBeanClass().getJavaClass();
        if (beanClass.isAnnotationPresent(Interceptor.class)) {
            return;
        }
        for (AnnotatedMethod<?> annotated : event.getAnnotatedBeanClass().getMethods()) {
            Method method = annotated.getJavaMember();
            if (isBusinessMethod(method)) {
                try {
                    definePolicy(beanClass, method);
                } catch (IdempotencyDefinitionException e) {
                    definitionErrors.add(e.getMessage());
                }
            }
        }
    }

    /** Checks one method and keeps its policy (HTTP) or plan (non-HTTP), if it has one. */
    private void definePolicy(Class<?> beanClass, Method method) {
        boolean annotated = PolicyResolver.annotationOf(beanClass, method).isPresent();
        boolean keyed = KeyExtractor.hasKeyParameters(method);
        String where = Messages.where(beanClass, method);
        if (!annotated) {
            if (keyed) {
                throw new IdempotencyDefinitionException(Messages.keyWithoutIdempotent(where));
            }
            return;
        }
        BeanMethod beanMethod = new BeanMethod(beanClass, method);
        if (ResourceMethods.isResourceMethod(beanClass, method)) {
            refuseStreamedAnswer(beanClass, method);
            policies.putIfAbsent(beanMethod, resolve(beanClass, method, true));
            resourceMethods.add(beanMethod);
            interceptedClasses.add(beanClass);
        } else if (keyed) {
            if (isAsynchronousEjb(beanClass, method)) {
                throw new IdempotencyDefinitionException(Messages.asynchronousEjb(where));
            }
            plans.putIfAbsent(beanMethod, Optional.of(MethodPlan.of(beanClass, method,
                    resolve(beanClass, method, false), settings.maxKeyLength())));
        } else if (method.isAnnotationPresent(Idempotent.class)) {
            // On a class, the annotation covers resource methods and keyed methods; on any other
            // method it would protect nothing, and silently doing nothing is the worst answer.
            throw new IdempotencyDefinitionException(Messages.noKeySource(where));
        }
    }

    /**
     * Resolves a policy and checks it against the library settings: a server-issued token must
     * never outlive the record of its use (else it could run a second time); a tenant scope needs
     * a tenant source the method can have.
     *
     * @param http whether the method is a JAX-RS resource method
     */
    private IdempotencyPolicy resolve(Class<?> beanClass, Method method, boolean http) {
        IdempotencyPolicy policy = resolver.resolve(beanClass, method);
        String where = Messages.where(beanClass, method);
        ScopeChecks.check(where, policy, settings, http, jwtApiPresent);
        if (policy.tenantScoped() && firstTenantScoped == null) {
            firstTenantScoped = where;
        }
        if (policy.serverIssuedKeys()) {
            if (policy.ttl().compareTo(settings.tokenTtl()) < 0) {
                throw new IdempotencyDefinitionException(Messages.ttlShorterThanTokens(where, policy.ttl().toString(),
                        settings.tokenTtl()));
            }
            if (policy.failOpen()) {
                // Failing open would run the request with a key nobody checked, and record no use of it.
                throw new IdempotencyDefinitionException(Messages.tokensWithFailOpen(where));
            }
            if (http && !policy.required()) {
                // A request without a key would run with no token checked, every time it is sent
                // (required means nothing without HTTP: a call without its key is always refused).
                throw new IdempotencyDefinitionException(Messages.tokensOptional(where));
            }
            long keyParts = java.util.Arrays.stream(method.getParameters())
                    .filter(parameter -> parameter.isAnnotationPresent(IdempotencyKey.class)).count();
            if (!http && keyParts > 1) {
                // The parts are joined into one key, which no issued token is: every call would be refused.
                throw new IdempotencyDefinitionException(Messages.tokenFromSeveralKeyParts(where, keyParts));
            }
            if (settings.maxKeyLength() < TokenRegistry.TOKEN_LENGTH) {
                throw new IdempotencyDefinitionException(Messages.tokensLongerThanKeys(where, settings.maxKeyLength(),
                        TokenRegistry.TOKEN_LENGTH));
            }
        }
        return policy;
    }

    /**
     * The default store, as a bean the extension makes (like the tiered store): its bounds come
     * from the settings validated at deployment, and the store itself knows nothing of CDI.
     */
    void addInMemoryStore(@Observes AfterBeanDiscovery event) {
        event.addBean()
                .beanClass(InMemoryIdempotencyStore.class)
                .types(InMemoryIdempotencyStore.class, IdempotencyStore.class, Object.class)
                .scope(ApplicationScoped.class)
                .createWith(context -> new InMemoryIdempotencyStore(settings.memoryMaxEntries(),
                        settings.memoryMaxBytes(), System::nanoTime));
    }

    void addTieredStore(@Observes AfterBeanDiscovery event, BeanManager beanManager) {
        List<String> fronts = TieredStoreBean.frontsIn(moduleStores);
        if (fronts.size() > 1) {
            // Each would be the store, at the same priority: say which modules, not CDI's ambiguity.
            event.addDefinitionError(new IdempotencyDefinitionException(Messages.severalRemoteStores(fronts)));
            return;
        }
        String front = TieredStoreBean.frontOf(moduleStores);
        if (front != null) {
            TieredStoreBean.add(event, beanManager, moduleStores, front, () -> settings.tieredFrontPause());
            LOG.info(Messages.tieredStore(front, TieredStoreBean.BACK));
        }
    }

    /** @return the value as written: an expression that does not resolve must not fail the check itself */
    private static String rawValue(Config config, String name) {
        try {
            String raw = config.getConfigValue(name).getRawValue();
            return raw == null ? "" : raw;
        } catch (RuntimeException e) {
            return "";
        }
    }

    void reportDefinitionErrors(@Observes AfterBeanDiscovery event) {
        if (settingsError != null) {
            definitionErrors.add(0, settingsError.getMessage());
        }
        Set<String> ownClasses = new HashSet<>();
        policies.keySet().forEach(beanMethod -> ownClasses.add(beanMethod.beanClass().getName()));
        plans.keySet().forEach(beanMethod -> ownClasses.add(beanMethod.beanClass().getName()));
        for (ConfiguredMembers.Unknown unknown : unknownMembers) {
            if (unknown.className() != null && ownClasses.contains(unknown.className())) {
                definitionErrors.add(unknown.message());
            } else {
                LOG.warning(unknown.message() + "; ignored (not failing the deployment: it names no class of this"
                        + " application with @Idempotent methods, and may be another application's)");
            }
        }
        definitionErrors.addAll(EndpointNames.conflicts(policies, plans));
        if (!definitionErrors.isEmpty()) {
            // One error listing them all: containers stop at the first, and users should fix them in one go.
            event.addDefinitionError(new IdempotencyDefinitionException(definitionErrors.size()
                    + " invalid @Idempotent definition(s):\n" + String.join("\n", definitionErrors)));
        }
    }

    /**
     * With {@code idempotency.tenant.source=RESOLVER} and a tenant-scoped method, exactly one
     * resolver bean must resolve: checked once the beans are known, not at the first request.
     */
    void checkScopeResolver(@Observes AfterDeploymentValidation event, BeanManager beanManager) {
        if (settings.tenantSource() != TenantSource.RESOLVER || firstTenantScoped == null) {
            return;
        }
        Set<Bean<?>> beans = beanManager.getBeans(IdempotencyScopeResolver.class);
        try {
            if (beanManager.resolve(beans) != null) {
                return;
            }
        } catch (jakarta.enterprise.inject.AmbiguousResolutionException e) {
            // reported below, with the beans' names
        }
        event.addDeploymentProblem(new IdempotencyDefinitionException(Messages.scopeResolverNotResolvable(
                LibrarySettings.TENANT_SOURCE, beans.stream().map(b -> b.getBeanClass().getName()).sorted().toList(),
                firstTenantScoped)));
    }

    void reportStore(@Observes AfterDeploymentValidation event) {
        if (otherStores.isEmpty()) {
            LOG.warning(Messages.inMemoryStoreInUse(settings.memoryMaxEntries()));
        } else {
            LOG.info(Messages.storesFound(otherStores));
        }
    }

    /** @return whether outcomes are counted through MicroProfile Metrics ({@link MicroProfileMetricsCounters} is a bean) */
    public boolean metricsCounted() {
        return metricsCounted;
    }

    /** @return whether outcomes are reported through OpenTelemetry ({@link OpenTelemetryOutcomes} is a bean) */
    public boolean telemetryReported() {
        return telemetryReported;
    }

    /** @return the validated library settings */
    public LibrarySettings settings() {
        return settings;
    }

    /**
     * The policy of an annotated method: from deployment when the class is a bean, else (a
     * JAX-RS resource that is not a CDI bean) resolved now, once, and cached.
     *
     * @param beanClass the bean or resource class
     * @param method an annotated method
     * @return its policy
     * @throws IdempotencyDefinitionException on a bad value
     */
    public IdempotencyPolicy policy(Class<?> beanClass, Method method) {
        BeanMethod beanMethod = new BeanMethod(beanClass, method);
        IdempotencyPolicy known = policies.get(beanMethod);
        if (known != null) {
            return known;
        }
        synchronized (firstUses) {
            known = policies.get(beanMethod);
            if (known != null) {
                return known;
            }
            refuseStreamedAnswer(beanClass, method);
            IdempotencyPolicy resolved = resolve(beanClass, method, true);
            // A class the runtime generated from one known at deployment (a proxy, an EJB view) is
            // that class, not a second user of its name.
            if (!generatedFromAKnownClass(beanClass, method)) {
                refuseTakenName(resolved.endpoint(), Map.of(beanMethod, resolved), Map.of());
            }
            policies.put(beanMethod, resolved);
            resourceMethods.add(beanMethod);
            return resolved;
        }
    }

    /**
     * A resource method whose answer is streamed (server-sent events, a chunked output) has no
     * answer to store: a retry would replay nothing of what the first request was sent.
     *
     * @throws IdempotencyDefinitionException {@code IDEMP0149} for such a method
     */
    private static void refuseStreamedAnswer(Class<?> beanClass, Method method) {
        String streamed = ResourceMethods.streamedAnswer(method);
        if (streamed != null) {
            throw new IdempotencyDefinitionException(Messages.streamedAnswer(Messages.where(beanClass, method), streamed));
        }
    }

    /**
     * @return every annotated resource method known so far with its resource class: the CDI beans'
     *     from deployment, the others' once JAX-RS started
     */
    public Set<BeanMethod> resourceMethods() {
        return Set.copyOf(resourceMethods);
    }

    /**
     * @return the policy of every {@code @Idempotent} method known so far, HTTP and non-HTTP, by its
     *     endpoint identity; of methods sharing a name ({@code sharedName}), the first in the order of
     *     their classes and methods
     */
    public Map<String, IdempotencyPolicy> policiesByEndpoint() {
        Map<String, IdempotencyPolicy> byName = new java.util.TreeMap<>();
        Map<BeanMethod, IdempotencyPolicy> all = new java.util.TreeMap<>(
                java.util.Comparator.comparing((BeanMethod m) -> m.beanClass().getName()).thenComparing(m -> m.method().toString()));
        all.putAll(policies);
        plans.forEach((method, plan) -> plan.ifPresent(p -> all.putIfAbsent(method, p.policy())));
        all.values().forEach(policy -> byName.putIfAbsent(policy.endpoint(), policy));
        return byName;
    }

    /**
     * @param resourceClass a class
     * @return whether it is a CDI bean whose {@code @Idempotent} methods the interceptor sees
     */
    public boolean isIntercepted(Class<?> resourceClass) {
        return interceptedClasses.contains(resourceClass);
    }

    /**
     * The plan of a non-HTTP {@code @Idempotent} method: from deployment, or, for a component the
     * container did not report as a bean (a message-driven bean), built at its first call and kept.
     *
     * @param targetClass the class of the intercepted instance: the bean class, or a subclass the
     *     container made of it
     * @param method an intercepted method
     * @return its plan, or {@code null} when the interceptor only proceeds (a resource method, or
     *     another method of an annotated class)
     * @throws IdempotencyDefinitionException on a bad definition found at the first call
     */
    public MethodPlan plan(Class<?> targetClass, Method method) {
        Map<Method, Optional<MethodPlan>> byMethod = plansByTargetClass.get(targetClass);
        Optional<MethodPlan> known = byMethod.get(method);
        if (known == null) {
            known = byMethod.computeIfAbsent(method, m -> findPlan(targetClass, m));
        }
        return known.orElse(null);
    }

    /**
     * The plan of the bean class behind the instance (up through the classes a container
     * generated, never to a superclass that is another bean); else, for a component the container
     * did not report as a bean, one built now.
     */
    private Optional<MethodPlan> findPlan(Class<?> targetClass, Method method) {
        BeanMethod beanMethod = new BeanMethod(ContainerSubclasses.beanClassOf(targetClass, method), method);
        Optional<MethodPlan> known = plans.get(beanMethod);
        if (known != null) {
            return known;
        }
        synchronized (firstUses) {
            known = plans.get(beanMethod);
            if (known != null) {
                return known;
            }
            Class<?> owner = beanMethod.beanClass();
            boolean planned = PolicyResolver.annotationOf(owner, method).isPresent()
                    && KeyExtractor.hasKeyParameters(method) && !ResourceMethods.isResourceMethod(owner, method);
            Optional<MethodPlan> plan = planned
                    ? Optional.of(MethodPlan.of(owner, method, resolve(owner, method, false), settings.maxKeyLength()))
                    : Optional.empty();
            if (plan.isPresent()) {
                refuseTakenName(plan.get().policy().endpoint(), Map.of(), Map.of(beanMethod, plan));
            }
            plans.put(beanMethod, plan);
            return plan;
        }
    }

    /** @return whether a class above this one already has a policy for this method (by name and parameters) */
    private boolean generatedFromAKnownClass(Class<?> beanClass, Method method) {
        for (BeanMethod known : policies.keySet()) {
            if (known.beanClass() != beanClass && known.beanClass().isAssignableFrom(beanClass)
                    && known.method().getName().equals(method.getName())
                    && Arrays.equals(known.method().getParameterTypes(), method.getParameterTypes())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Checks the name of a method found after deployment (a message-driven bean at its first call,
     * a JAX-RS resource that is no bean when JAX-RS starts) against every method known: a failure
     * is not kept, so every use fails until the definition is fixed. Under {@link #firstUses}, so
     * that two such methods found at once see each other.
     */
    private void refuseTakenName(String name, Map<BeanMethod, IdempotencyPolicy> newPolicy,
            Map<BeanMethod, Optional<MethodPlan>> newPlan) {
        Map<BeanMethod, IdempotencyPolicy> allPolicies = new HashMap<>(policies);
        allPolicies.putAll(newPolicy);
        Map<BeanMethod, Optional<MethodPlan>> allPlans = new HashMap<>(plans);
        allPlans.putAll(newPlan);
        List<String> conflicts = EndpointNames.conflictsOf(name, allPolicies, allPlans);
        if (!conflicts.isEmpty()) {
            throw new IdempotencyDefinitionException(String.join("; ", conflicts));
        }
    }

    private static boolean isAsynchronousEjb(Class<?> beanClass, Method method) {
        return method.isAnnotationPresent(jakarta.ejb.Asynchronous.class)
                || beanClass.isAnnotationPresent(jakarta.ejb.Asynchronous.class);
    }

    private static boolean isBusinessMethod(Method method) {
        int modifiers = method.getModifiers();
        return !Modifier.isStatic(modifiers) && !Modifier.isPrivate(modifiers) && !method.isSynthetic()
                && !method.isBridge() && method.getDeclaringClass() != Object.class;
    }
}
