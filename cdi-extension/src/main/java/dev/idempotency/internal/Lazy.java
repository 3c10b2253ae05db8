package dev.idempotency.internal;

import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A value built once, at its first use, by whichever thread comes first; later uses read a
 * volatile field and take no lock.
 *
 * @param <T> the value's type
 */
public final class Lazy<T> {

    private final Supplier<T> builder;
    private volatile T value;

    /**
     * @param builder builds the value; called at most once (unless it throws)
     */
    public Lazy(Supplier<T> builder) {
        this.builder = builder;
    }

    /** @return the value, built now if this is the first use */
    public T get() {
        T built = value;
        if (built == null) {
            synchronized (this) {
                built = value;
                if (built == null) {
                    built = builder.get();
                    value = built;
                }
            }
        }
        return built;
    }

    /**
     * Acts on the value only where it was built already: nothing is built for it.
     *
     * @param action what to do with the value
     */
    public void ifBuilt(Consumer<T> action) {
        T built = value;
        if (built != null) {
            action.accept(built);
        }
    }
}
