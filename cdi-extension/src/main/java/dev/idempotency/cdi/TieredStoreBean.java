package dev.idempotency.cdi;

import java.time.Duration;
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
 * When an application holds both store modules, adds the {@link TieredIdempotencyStore} over them
 * as a bean: an alternative one priority above the modules, so that it is the store every
 * injection point gets (an application's own store of a higher priority still wins). The modules
 * are recognised by their class names: this module does not depend on them.
 */
final class TieredStoreBean {

    /** The fast layer. */
    static final String FRONT = "dev.idempotency.infinispan.InfinispanIdempotencyStore";
    /** The durable layer. */
    static final String BACK = "dev.idempotency.jpa.JpaIdempotencyStore";

    private TieredStoreBean() {
    }

    static boolean isLayer(String beanClass) {
        return FRONT.equals(beanClass) || BACK.equals(beanClass);
    }

    static boolean bothLayersIn(Map<String, Bean<?>> stores) {
        return stores.containsKey(FRONT) && stores.containsKey(BACK);
    }

    static void add(AfterBeanDiscovery event, BeanManager beanManager, Map<String, Bean<?>> stores,
            Supplier<Duration> frontPause) {
        Bean<?> front = stores.get(FRONT);
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
