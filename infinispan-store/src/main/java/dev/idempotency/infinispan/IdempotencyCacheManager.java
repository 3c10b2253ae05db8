package dev.idempotency.infinispan;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import jakarta.inject.Qualifier;

/**
 * Qualifies a {@code RemoteCacheManager} the Infinispan store should use instead of creating its
 * own from the {@code infinispan.client.hotrod.*} properties of MicroProfile Config. Its
 * marshaller must be a {@code ProtoStreamMarshaller} that knows the store's schema:
 *
 * <pre>{@code
 * @Produces @IdempotencyCacheManager @ApplicationScoped
 * RemoteCacheManager idempotencyCacheManager() {
 *     return new RemoteCacheManager(new ConfigurationBuilder()
 *             .addServer().host("ispn.internal").port(11222)
 *             .marshaller(new ProtoStreamMarshaller())
 *             .addContextInitializer(IdempotencySchema.INSTANCE)
 *             .build());
 * }
 * }</pre>
 *
 * The application then also closes it.
 */
@Qualifier
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE})
public @interface IdempotencyCacheManager {
}
