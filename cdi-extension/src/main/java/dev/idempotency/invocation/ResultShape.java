package dev.idempotency.invocation;

import java.lang.reflect.Constructor;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import dev.idempotency.exceptions.IdempotencyDefinitionException;
import dev.idempotency.internal.Messages;

/**
 * What a non-HTTP method returns, checked at deployment: nothing, a value JSON-B can write and
 * read back as an equal value, or a {@code CompletionStage} of one.
 *
 * @param kind void, a value, or a stage
 * @param valueType the generic type of the value (of the stage's value for a stage); {@code null} for void
 */
public record ResultShape(Kind kind, Type valueType) {

    /** The kinds of result. */
    public enum Kind {
        /** {@code void}: a duplicate is skipped. */
        VOID,
        /** A value, stored as JSON-B and read back for duplicates. */
        VALUE,
        /** A {@code CompletionStage} or {@code CompletableFuture}: stored when it completes. */
        STAGE
    }

    private static final Set<Class<?>> CONTAINERS = Set.of(Collection.class, List.class, Set.class, SortedSet.class,
            Map.class, SortedMap.class, Optional.class);

    /**
     * @param where the bean and method, for messages
     * @param method the method
     * @return its shape
     * @throws IdempotencyDefinitionException when its results cannot be stored and replayed
     */
    public static ResultShape of(String where, Method method) {
        Class<?> raw = method.getReturnType();
        Type generic = method.getGenericReturnType();
        if (raw == void.class || raw == Void.class) {
            return new ResultShape(Kind.VOID, null);
        }
        if (CompletionStage.class.isAssignableFrom(raw)) {
            if (raw != CompletionStage.class && raw != CompletableFuture.class) {
                throw unsupported(where, generic, "only CompletionStage and CompletableFuture stages can be completed later");
            }
            if (!(generic instanceof ParameterizedType stage)) {
                throw unsupported(where, generic, "a raw stage has no value type to read back");
            }
            Type value = stage.getActualTypeArguments()[0];
            if (value == Void.class) {
                return new ResultShape(Kind.STAGE, Void.class);
            }
            check(where, generic, value);
            return new ResultShape(Kind.STAGE, value);
        }
        if (Future.class.isAssignableFrom(raw)) {
            throw unsupported(where, generic, "a Future cannot tell the interceptor when it completes");
        }
        check(where, generic, generic);
        return new ResultShape(Kind.VALUE, generic);
    }

    private static void check(String where, Type declared, Type type) {
        if (type instanceof TypeVariable<?> || type instanceof WildcardType) {
            throw unsupported(where, declared, "the type variable " + type.getTypeName() + " cannot be read back");
        }
        if (type instanceof GenericArrayType array) {
            check(where, declared, array.getGenericComponentType());
            return;
        }
        if (type instanceof ParameterizedType parameterized) {
            Class<?> raw = (Class<?>) parameterized.getRawType();
            if (!CONTAINERS.contains(raw)) {
                checkClass(where, declared, raw);
            }
            for (Type argument : parameterized.getActualTypeArguments()) {
                check(where, declared, argument);
            }
            return;
        }
        Class<?> type1 = (Class<?>) type;
        if (CONTAINERS.contains(type1)) {
            throw unsupported(where, declared, "a raw " + type1.getSimpleName() + " has no element type to read back");
        }
        checkClass(where, declared, type1);
    }

    private static void checkClass(String where, Type declared, Class<?> type) {
        if (type.isArray()) {
            checkClass(where, declared, type.getComponentType());
            return;
        }
        String lossy = lossy(type);
        if (lossy != null) {
            throw unsupported(where, declared, lossy);
        }
        if (type.isRecord()) {
            checkComponents(where, declared, type, new HashSet<>());
            return;
        }
        if (type.isPrimitive() || type.isEnum() || isJdkValue(type)) {
            return;
        }
        if (type.isInterface() || Modifier.isAbstract(type.getModifiers())) {
            throw unsupported(where, declared, type.getName() + " is " + (type.isInterface() ? "an interface" : "abstract")
                    + " and JSON-B cannot create one");
        }
        if (!hasCreator(type)) {
            throw unsupported(where, declared, type.getName() + " has neither a no-argument constructor nor a @JsonbCreator");
        }
    }

    /**
     * @return why JSON-B reads a value of this declared type back as another type, which the
     *     read-back check at the first call cannot see (it succeeds); or null
     */
    private static String lossy(Class<?> type) {
        if (type == Object.class) {
            return "Object is read back as a Map, not as the value that was returned";
        }
        if (type == Number.class) {
            return "Number is read back as a BigDecimal, not as the Integer or Long that was returned";
        }
        if (type.isInterface() && type.getName().startsWith("java.lang.")) {
            return type.getName() + " is an interface JSON-B reads back as one of its own choosing, or not at all";
        }
        return null;
    }

    /**
     * A record's components, through nested records and containers, declared as a type JSON-B
     * reads back as another ({@link #lossy}). Other components are left to the check at the first
     * call, which reads the written result back (one of an interface type fails there).
     */
    private static void checkComponents(String where, Type declared, Class<?> record, Set<Class<?>> seen) {
        if (!seen.add(record)) {
            return; // a record that nests itself
        }
        for (RecordComponent component : record.getRecordComponents()) {
            checkComponent(where, declared, record, component, component.getGenericType(), seen);
        }
    }

    private static void checkComponent(String where, Type declared, Class<?> record, RecordComponent component, Type type,
            Set<Class<?>> seen) {
        if (type instanceof ParameterizedType parameterized) {
            checkComponent(where, declared, record, component, parameterized.getRawType(), seen);
            for (Type argument : parameterized.getActualTypeArguments()) {
                checkComponent(where, declared, record, component, argument, seen);
            }
        } else if (type instanceof GenericArrayType array) {
            checkComponent(where, declared, record, component, array.getGenericComponentType(), seen);
        } else if (type instanceof Class<?> raw) {
            Class<?> element = raw;
            while (element.isArray()) {
                element = element.getComponentType();
            }
            String lossy = lossy(element);
            if (lossy != null) {
                throw unsupported(where, declared, "the component " + component.getName() + " of " + record.getName()
                        + ": " + lossy);
            }
            if (element.isRecord()) {
                checkComponents(where, declared, element, seen);
            }
        }
    }

    private static boolean isJdkValue(Class<?> type) {
        String name = type.getName();
        return name.startsWith("java.lang.") || name.startsWith("java.math.") || name.startsWith("java.time.")
                || type == java.util.UUID.class || type == java.util.Date.class || type == java.net.URI.class;
    }

    private static boolean hasCreator(Class<?> type) {
        for (Constructor<?> constructor : type.getDeclaredConstructors()) {
            if (constructor.getParameterCount() == 0 && !Modifier.isPrivate(constructor.getModifiers())) {
                return true;
            }
            if (constructor.isAnnotationPresent(jakarta.json.bind.annotation.JsonbCreator.class)) {
                return true;
            }
        }
        for (Method method : type.getDeclaredMethods()) {
            if (Modifier.isStatic(method.getModifiers())
                    && method.isAnnotationPresent(jakarta.json.bind.annotation.JsonbCreator.class)) {
                return true;
            }
        }
        return false;
    }

    private static IdempotencyDefinitionException unsupported(String where, Type type, String why) {
        return new IdempotencyDefinitionException(Messages.unsupportedReturnType(where, type.getTypeName(), why));
    }
}
