package dev.idempotency.cdi;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;

import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.support.TransactionGuard;
import dev.idempotency.store.TieredIdempotencyStore;

/**
 * When an application holds a remote store module (Infinispan or Redis) and the JPA store
 * module, adds the {@link TieredIdempotencyStore} over them as a bean: the remote store in front,
 * JPA behind; an alternative one priority above the modules, so that it is the store every
 * injection point gets (an application's own store of a higher priority still wins). The modules
 * are recognised by their class names: this module does not depend on them.
 */
final class TieredStoreBean {

    /** The Infinispan store, a fast layer. */
    static final String INFINISPAN = "dev.idempotency.infinispan.InfinispanIdempotencyStore";
    /** The Redis store, a fast layer. */
    static final String REDIS = "dev.idempotency.redis.RedisIdempotencyStore";
    /** The fast layers, one of which goes in front. */
    static final List<String> FRONTS = List.of(INFINISPAN, REDIS);
    /** The durable layer. */
    static final String BACK = "dev.idempotency.jpa.JpaIdempotencyStore";

    private TieredStoreBean() {
    }

    static boolean isLayer(String beanClass) {
        return FRONTS.contains(beanClass) || BACK.equals(beanClass);
    }

    /** @return the fast layers among the stores found, in a stable order */
    static List<String> frontsIn(Map<String, Bean<?>> stores) {
        return FRONTS.stream().filter(stores::containsKey).toList();
    }

    /** @return the single fast layer when a tiered store can be made of the stores found, else {@code null} */
    static String frontOf(Map<String, Bean<?>> stores) {
        List<String> fronts = frontsIn(stores);
        return fronts.size() == 1 && stores.containsKey(BACK) ? fronts.get(0) : null;
    }

    static void add(AfterBeanDiscovery event, BeanManager beanManager, Map<String, Bean<?>> stores, String frontClass,
            Supplier<Duration> frontPause) {
        Bean<?> front = stores.get(frontClass);
        Bean<?> back = stores.get(BACK);
        event.addBean()
                .beanClass(TieredIdempotencyStore.class)
                .types(IdempotencyStore.class, Object.class)
                .scope(ApplicationScoped.class)
                .alternative(true)
                .priority(IdempotencyStore.STORE_MODULE_PRIORITY + 1)
                .createWith(context -> new TieredIdempotencyStore(reference(beanManager, front),
                        reference(beanManager, back), frontPause.get(), System::nanoTime, new TransactionGuard()));
    }

    private static IdempotencyStore reference(BeanManager beanManager, Bean<?> bean) {
        return (IdempotencyStore) beanManager.getReference(bean, IdempotencyStore.class,
                beanManager.createCreationalContext(bean));
    }
}
