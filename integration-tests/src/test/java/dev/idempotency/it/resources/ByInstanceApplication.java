package dev.idempotency.it.resources;

import java.util.Set;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

import dev.idempotency.jaxrs.IdempotencyFeature;

/**
 * An application that lists its classes and creates its resource itself
 * ({@link Application#getSingletons()}): the resource's class is a CDI bean, but this instance is
 * not one.
 */
@ApplicationPath("/by-instance")
public class ByInstanceApplication extends Application {

    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(IdempotencyFeature.class);
    }

    @Override
    public Set<Object> getSingletons() {
        return Set.of(new DecliningResource());
    }
}
