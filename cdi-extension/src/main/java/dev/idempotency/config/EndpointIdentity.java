package dev.idempotency.config;

import java.lang.reflect.Method;
import java.util.StringJoiner;

/**
 * The identity of an {@code @Idempotent} endpoint, which scopes its keys: an explicit
 * {@code name}, or one derived from the bean class (or a class-level name standing for it), the
 * method name and the erased parameter types, so that overloads and two beans inheriting one
 * method never share keys.
 */
public final class EndpointIdentity {

    /** The longest explicit name. */
    public static final int MAX_NAME_LENGTH = 200;

    private EndpointIdentity() {
    }

    /**
     * @param classPart the bean class's name, or a class-level name standing for it
     * @param method the method
     * @return {@code classPart#method(erased.Param1,erased.Param2)}
     */
    public static String derived(String classPart, Method method) {
        StringJoiner parameters = new StringJoiner(",", "(", ")");
        for (Class<?> type : method.getParameterTypes()) {
            parameters.add(type.getTypeName());
        }
        return classPart + "#" + method.getName() + parameters;
    }

    /**
     * @param name a configured or annotated name
     * @return whether it is 1 to {@value #MAX_NAME_LENGTH} printable US-ASCII characters without spaces
     */
    public static boolean isValidName(String name) {
        if (name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c <= 0x20 || c >= 0x7f) {
                return false;
            }
        }
        return true;
    }
}
