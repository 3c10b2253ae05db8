package dev.idempotency.invocation;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Proxy;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.ObservesAsync;

import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.exceptions.IdempotencyDefinitionException;
import dev.idempotency.exceptions.IdempotencyException;
import dev.idempotency.internal.Hashing;
import dev.idempotency.internal.Messages;

/**
 * Everything the interceptor needs for one non-HTTP {@code @Idempotent} method, built and checked
 * once at deployment: the policy, where the key comes from, which arguments are fingerprinted,
 * and the result's shape.
 *
 * @param policy the validated policy
 * @param where "bean X, method m", for messages
 * @param keys where the key comes from
 * @param fingerprinted the indices of the fingerprinted arguments: all but the JMS message and the
 *     parameters that are the key whole, except a key whose text two values may share (a
 *     collection, a map, a record whose text is its components'), which counts as an argument
 *     too; of an observer method, only its event
 * @param fingerprintTypes their generic types
 * @param fingerprintClasses their declared classes: a value of another record or enum (or, where
 *     the declared type is an application's, final class) adds its class's name, since JSON-B
 *     writes no type
 * @param canons how each one's JSON is put in one order (sets and maps)
 * @param openKeys the parameters that are the key whole, not fingerprinted, whose declared type
 *     does not tell whether two values may share their text ({@code Object}, an interface, a class
 *     that is not final): a value whose class says so ({@code List.of("a, b")} behind
 *     {@code Object}) is fingerprinted per call
 * @param result what the method returns
 */
public record MethodPlan(IdempotencyPolicy policy, String where, KeyExtractor keys, int[] fingerprinted,
        Type[] fingerprintTypes, Class<?>[] fingerprintClasses, ArgumentCanon[] canons, int[] openKeys,
        ResultShape result) {

    /** How a key value's JSON is put in one order, by the value's class: asked per call for {@link #openKeys}. */
    private static final ClassValue<ArgumentCanon> CANON_OF_CLASS = new ClassValue<>() {
        @Override
        protected ArgumentCanon computeValue(Class<?> type) {
            return ArgumentCanon.of(type);
        }
    };

    /** How a class is named in the fingerprint, decided once per class (reflection kept off the per-call path). */
    private static final ClassValue<Naming> NAMING = new ClassValue<>() {
        @Override
        protected Naming computeValue(Class<?> type) {
            return Naming.of(type);
        }
    };

    /** Whether a declared type is the JDK's or a Jakarta specification's, once per class. */
    private static final ClassValue<Boolean> PLATFORM = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            String name = type.getName();
            return type.isPrimitive() || name.startsWith("java.") || name.startsWith("javax.")
                    || name.startsWith("jakarta.");
        }
    };

    /** Whether two values of a class may share their text (asked per call for {@link #openKeys}). */
    private static final ClassValue<Boolean> TEXT_MAY_BE_SHARED = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            return textMayBeShared(type);
        }
    };

    /**
     * @param beanClass the bean class
     * @param method a method with {@code @IdempotencyKey} parameters
     * @param policy its resolved policy
     * @param maxKeyLength the longest key part
     * @return the plan
     * @throws IdempotencyDefinitionException when a key path or the return type is unsupported
     */
    public static MethodPlan of(Class<?> beanClass, Method method, IdempotencyPolicy policy, int maxKeyLength) {
        String where = Messages.where(beanClass, method);
        KeyExtractor keys = KeyExtractor.of(beanClass, method, maxKeyLength);
        ResultShape result = ResultShape.of(where, method);
        Set<Integer> keyIndices = keys.wholeKeyParameterIndices();
        List<Integer> indices = new ArrayList<>();
        List<Integer> open = new ArrayList<>();
        if (policy.fingerprintArguments()) {
            Class<?>[] types = method.getParameterTypes();
            Type[] declared = method.getGenericParameterTypes();
            int event = observedEvent(method);
            for (int i = 0; i < types.length; i++) {
                // an observer's other parameters are beans CDI injects, no part of the request
                boolean injected = event >= 0 && i != event;
                // an Optional key's text is its value's: judged by what it holds
                Class<?> keyType = optionalElement(types[i], declared[i]);
                boolean itsTextIsTheKey = keyIndices.contains(i) && !textMayBeShared(keyType);
                if (!injected && !itsTextIsTheKey && !types[i].getName().startsWith("jakarta.jms.")) {
                    indices.add(i);
                } else if (!injected && itsTextIsTheKey && !KeyExtractor.declaredTypeDecides(keyType)) {
                    open.add(i);
                }
            }
        }
        int[] fingerprinted = indices.stream().mapToInt(Integer::intValue).toArray();
        Type[] generic = method.getGenericParameterTypes();
        Type[] fingerprintTypes = new Type[fingerprinted.length];
        Class<?>[] fingerprintClasses = new Class<?>[fingerprinted.length];
        ArgumentCanon[] canons = new ArgumentCanon[fingerprinted.length];
        for (int i = 0; i < fingerprinted.length; i++) {
            fingerprintTypes[i] = generic[fingerprinted[i]];
            fingerprintClasses[i] = method.getParameterTypes()[fingerprinted[i]];
            canons[i] = ArgumentCanon.of(fingerprintTypes[i]);
        }
        return new MethodPlan(policy, where, keys, fingerprinted, fingerprintTypes, fingerprintClasses, canons,
                open.stream().mapToInt(Integer::intValue).toArray(), result);
    }

    /** @return the index of an observer method's event parameter, or -1 */
    private static int observedEvent(Method method) {
        Annotation[][] annotations = method.getParameterAnnotations();
        for (int i = 0; i < annotations.length; i++) {
            for (Annotation annotation : annotations[i]) {
                if (annotation instanceof Observes || annotation instanceof ObservesAsync) {
                    return i;
                }
            }
        }
        return -1;
    }

    /**
     * @return the class an {@code Optional} parameter holds ({@code Object} where its type argument
     *     does not say), or the parameter's class
     */
    private static Class<?> optionalElement(Class<?> type, Type declared) {
        if (type != Optional.class) {
            return type;
        }
        Type held = declared instanceof ParameterizedType optional ? optional.getActualTypeArguments()[0] : Object.class;
        if (held instanceof ParameterizedType parameterized) {
            held = parameterized.getRawType();
        }
        return held instanceof Class<?> heldClass ? heldClass : Object.class;
    }

    /**
     * @return whether two values of this declared key type may have one text, which is the key:
     *     a collection's or a map's (the elements {@code "a", "b"} and the one {@code "a, b"}), a
     *     record's made of its components'. Not an application's class that writes its own text
     *     (an entity's id): it says what it is, and JSON-B might not write the rest of it (lazy
     *     associations, cycles)
     */
    private static boolean textMayBeShared(Class<?> type) {
        return Collection.class.isAssignableFrom(type) || Map.class.isAssignableFrom(type)
                || KeyExtractor.textOfComponents(type);
    }

    /**
     * When an argument's class is named in the fingerprint (JSON-B writes no type, so two records
     * of one interface with the same components would be one request): an application's record or
     * enum other than the declared type, and a final class of its where the declared type is an
     * application's too. Only classes whose name is the same on every node and after a restart:
     * not one that is not final (it may be a proxy generated under a name of its own per JVM: a
     * JPA provider's lazy entity, a CDI client proxy), a JDK proxy, an anonymous or local class,
     * nor a final class behind a type of the platform's ({@code JsonObject}: a provider's
     * implementing class differs between servers).
     */
    private enum Naming {
        /** never named */
        NEVER,
        /** a record or an enum: named behind any other declared type */
        ALWAYS,
        /** a final class: named behind an application's declared type */
        BEHIND_APPLICATION_TYPES;

        static Naming of(Class<?> type) {
            if (PLATFORM.get(type) || type.isAnonymousClass() || type.isLocalClass() || type.isHidden()
                    || type.isSynthetic() || Proxy.isProxyClass(type)) {
                return NEVER;
            }
            if (type.isRecord() || type.isEnum()) {
                return ALWAYS;
            }
            return Modifier.isFinal(type.getModifiers()) ? BEHIND_APPLICATION_TYPES : NEVER;
        }

        /** @return whether a value of this naming's class, behind {@code declared}, is named */
        boolean behind(Class<?> type, Class<?> declared) {
            return type != declared && (this == ALWAYS || (this == BEHIND_APPLICATION_TYPES && !PLATFORM.get(declared)));
        }
    }

    /** @return the class an argument is named by: an enum constant with a body of its own counts as its enum */
    private static Class<?> namedClass(Object value) {
        return value instanceof Enum<?> constant ? constant.getDeclaringClass() : value.getClass();
    }

    /**
     * @param codec writes arguments as JSON-B
     * @param arguments the invocation's arguments
     * @return the fingerprint of the method and its {@link #fingerprinted} arguments
     */
    public String fingerprint(ResultCodec codec, Object[] arguments) {
        Hashing hashing = Hashing.sha256().add("method").add(policy.endpoint());
        for (int i = 0; i < fingerprinted.length; i++) {
            Object argument = arguments[fingerprinted[i]];
            Class<?> type = argument == null ? null : namedClass(argument);
            if (type != null && NAMING.get(type).behind(type, fingerprintClasses[i])) {
                hashing.add("class").add(type.getName()); // no JSON text is the bare word "class"
            }
            addJson(hashing, codec, fingerprinted[i], argument, fingerprintTypes[i], canons[i]);
        }
        for (int index : openKeys) {
            Object key = arguments[index] instanceof Optional<?> optional ? optional.orElse(null) : arguments[index];
            if (key != null && TEXT_MAY_BE_SHARED.get(key.getClass())) {
                hashing.add("key").add(String.valueOf(index)); // no JSON text is the bare word "key"
                addJson(hashing, codec, index, key, key.getClass(), CANON_OF_CLASS.get(key.getClass()));
            }
        }
        return hashing.finish();
    }

    /** Adds an argument's JSON, in one order, to the fingerprint; one JSON-B cannot write refuses the call. */
    private void addJson(Hashing hashing, ResultCodec codec, int index, Object value, Type type, ArgumentCanon canon) {
        try {
            hashing.add(canon.apply(codec.write(value, type)));
        } catch (RuntimeException | StackOverflowError e) { // (an argument nested deeper than JSON-B's recursion reaches)
            throw new IdempotencyException(Messages.argumentsNotFingerprintable(where, index), e);
        }
    }
}
