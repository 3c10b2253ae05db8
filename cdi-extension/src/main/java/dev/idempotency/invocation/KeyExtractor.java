package dev.idempotency.invocation;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.exceptions.IdempotencyDefinitionException;
import dev.idempotency.exceptions.InvalidIdempotencyKeyException;
import dev.idempotency.internal.Messages;

/**
 * Takes the idempotency key of a non-HTTP invocation from its {@link IdempotencyKey} parameters.
 * Property paths are resolved once, at deployment, into method handles; a call only follows
 * them. A {@code jakarta.jms.Message} parameter also offers its string properties by name
 * ({@code @IdempotencyKey("orderId")} reads {@code getStringProperty("orderId")}), besides its
 * headers ({@code "JMSMessageID"}, {@code "JMSCorrelationID"}).
 */
public final class KeyExtractor {

    private static final String JMS_MESSAGE = "jakarta.jms.Message";

    /**
     * Why a class's text is its identity (an array; a class whose toString() is Object's; a record
     * with a component of such a declared type, whose text then holds an identity), or
     * {@code null} when it is not: asked at deployment of the declared type where that decides,
     * and per call, once per class, of the values of other types.
     */
    private static final ClassValue<String> IDENTITY_TEXT = new ClassValue<>() {
        @Override
        protected String computeValue(Class<?> type) {
            return identityText(type, new java.util.HashSet<>());
        }
    };

    /**
     * The components of a record whose text is made of them (its toString() is the implicit one)
     * whose values must be looked at per call: those whose declared type does not tell (an
     * interface, {@code Object}, a class that is not final) and records.
     */
    private static final ClassValue<List<Component>> OPEN_COMPONENTS = new ClassValue<>() {
        @Override
        protected List<Component> computeValue(Class<?> type) {
            if (!textOfComponents(type)) {
                return List.of();
            }
            List<Component> open = new ArrayList<>();
            for (RecordComponent component : type.getRecordComponents()) {
                Class<?> declared = component.getType();
                if (!declaredTypeDecides(declared) || declared.isRecord() || declared == Optional.class) {
                    try {
                        open.add(new Component(component.getName(), handle(component.getAccessor())));
                    } catch (IllegalStateException notAccessible) {
                        // a module that does not open it: its value cannot be looked at, its text stands
                    }
                }
            }
            return List.copyOf(open);
        }
    };

    /** A record component whose value is looked at per call: its name, for messages, and its accessor. */
    private record Component(String name, MethodHandle accessor) {
    }

    /** How deep records inside records are looked into per call. */
    private static final int MAX_RECORD_DEPTH = 8;

    /**
     * @param type a class
     * @param visiting the records whose components are being looked at (a record may hold its own type)
     * @return why the text of {@code type}'s values is (or holds) an identity whatever they hold, or
     *     {@code null}
     */
    private static String identityText(Class<?> type, Set<Class<?>> visiting) {
        if (type.isArray()) {
            return "an array, whose text is its identity";
        }
        if (textOfComponents(type)) {
            if (!visiting.add(type)) {
                return null;
            }
            for (RecordComponent component : type.getRecordComponents()) {
                Class<?> declared = component.getType();
                // only what the declared type decides; the others' values are looked at per call
                String why = declaredTypeDecides(declared) ? identityText(declared, visiting) : null;
                if (why != null) {
                    return "a record whose component " + component.getName() + " is " + why;
                }
            }
            return null;
        }
        try {
            return type.getMethod("toString").getDeclaringClass() == Object.class
                    ? "a class that does not declare toString(), whose text is its identity" : null;
        } catch (NoSuchMethodException e) {
            return null; // a primitive: a number or a boolean
        }
    }

    /**
     * @param declared a record component's declared type
     * @return whether that type alone tells whether the component's text is an identity (a
     *     primitive, an array, an enum, a final class, a record); values of any other (an interface,
     *     {@code Object}, a class that is not final) are looked at per call, and so are records' own
     *     components ({@link #OPEN_COMPONENTS})
     */
    static boolean declaredTypeDecides(Class<?> declared) {
        return declared.isPrimitive() || declared.isArray() || declared.isEnum() || Modifier.isFinal(declared.getModifiers());
    }

    /**
     * @return whether {@code type} is a record whose text is made of its components' texts: its
     *     toString() is the implicit one, which javac makes final (one the record declares itself
     *     says what it says)
     */
    static boolean textOfComponents(Class<?> type) {
        if (!type.isRecord()) {
            return false;
        }
        try {
            return Modifier.isFinal(type.getMethod("toString").getModifiers());
        } catch (NoSuchMethodException e) {
            return true;
        }
    }

    /**
     * @return why this value's text is (or holds) an identity, or {@code null}: its class, and, for a
     *     record, the values of its components whose declared type does not tell
     */
    private static String identityTextOf(Object value, int depth) {
        String why = IDENTITY_TEXT.get(value.getClass());
        if (why != null || depth == MAX_RECORD_DEPTH) {
            return why; // a container of its own class without its own toString() too
        }
        // what a collection, a map or an Optional holds is part of its text
        if (value instanceof Optional<?> optional) {
            return optional.isPresent() ? holding("an Optional", identityTextOf(optional.get(), depth + 1)) : null;
        }
        if (value instanceof Collection<?> collection) {
            return holding("a collection", firstIdentityText(collection, depth));
        }
        if (value instanceof Map<?, ?> map) {
            String held = firstIdentityText(map.keySet(), depth);
            return holding("a map", held != null ? held : firstIdentityText(map.values(), depth));
        }
        if (!(value instanceof Record)) {
            return null;
        }
        for (Component component : OPEN_COMPONENTS.get(value.getClass())) {
            Object held;
            try {
                held = component.accessor().invoke(value);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
            String inner = held == null ? null : identityTextOf(held, depth + 1);
            if (inner != null) {
                return "a record whose component " + component.name() + " is " + inner;
            }
        }
        return null;
    }

    private static String firstIdentityText(Collection<?> values, int depth) {
        for (Object held : values) {
            String why = held == null ? null : identityTextOf(held, depth + 1);
            if (why != null) {
                return why;
            }
        }
        return null;
    }

    private static String holding(String container, String why) {
        return why == null ? null : container + " holding " + why;
    }

    /** One marked parameter: where it is, how to read it, and how to name it in messages. */
    private record Part(int index, String label, List<MethodHandle> steps) {
    }

    private final String where;
    private final List<Part> parts;
    private final int maxLength;

    private KeyExtractor(String where, List<Part> parts, int maxLength) {
        this.where = where;
        this.parts = parts;
        this.maxLength = maxLength;
    }

    /**
     * @param method a method
     * @return whether any of its parameters is marked {@link IdempotencyKey}
     */
    public static boolean hasKeyParameters(Method method) {
        for (Parameter parameter : method.getParameters()) {
            if (parameter.isAnnotationPresent(IdempotencyKey.class)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param beanClass the bean class, for messages
     * @param method a method with {@link IdempotencyKey} parameters
     * @param maxLength the longest key part allowed
     * @return the extractor
     * @throws IdempotencyDefinitionException when a property path cannot be followed
     */
    public static KeyExtractor of(Class<?> beanClass, Method method, int maxLength) {
        String where = Messages.where(beanClass, method);
        List<Part> parts = new ArrayList<>();
        Parameter[] parameters = method.getParameters();
        for (int i = 0; i < parameters.length; i++) {
            IdempotencyKey marker = parameters[i].getAnnotation(IdempotencyKey.class);
            if (marker == null) {
                continue;
            }
            String path = marker.value().trim();
            String label = "parameter " + i + (path.isEmpty() ? "" : " path '" + path + "'");
            List<MethodHandle> steps = path.isEmpty() ? List.of() : steps(where, i, parameters[i].getType(), path);
            Class<?> type = steps.isEmpty() ? parameters[i].getType() : steps.get(steps.size() - 1).type().returnType();
            String unusable = unusableKeyType(type);
            if (unusable != null) {
                throw new IdempotencyDefinitionException(Messages.unusableKeyType(where, label, type.getTypeName(), unusable));
            }
            parts.add(new Part(i, label, steps));
        }
        return new KeyExtractor(where, List.copyOf(parts), maxLength);
    }

    /**
     * @param type the declared type of a key part
     * @return why its values cannot name a call (their text is their identity: every call, every
     *     redelivery of one message, would get a key of its own), or {@code null} when they can or
     *     may: a type whose values may be of subclasses ({@code Object}, an interface, a class that
     *     is not final) is checked per call for arrays only
     */
    private static String unusableKeyType(Class<?> type) {
        // values of a class that is not final may be of subclasses that declare their own (checked per call)
        return type.isArray() || Modifier.isFinal(type.getModifiers()) ? IDENTITY_TEXT.get(type) : null;
    }

    /**
     * @return the indices of the parameters that are a key part themselves; a parameter whose
     *     property is the key (a message whose {@code orderNo} is) still has a payload to fingerprint
     */
    public Set<Integer> wholeKeyParameterIndices() {
        Set<Integer> indices = new java.util.HashSet<>();
        parts.stream().filter(part -> part.steps().isEmpty()).forEach(part -> indices.add(part.index()));
        return Set.copyOf(indices);
    }

    /**
     * @param arguments the invocation's arguments
     * @return the raw key: the parts, validated, joined by a line feed (which no part can hold)
     * @throws InvalidIdempotencyKeyException when a part is null, empty, too long or not printable ASCII
     */
    public String extract(Object[] arguments) {
        StringBuilder key = new StringBuilder();
        for (Part part : parts) {
            String value = read(part, arguments[part.index()]);
            if (key.length() > 0) {
                key.append('\n');
            }
            key.append(value);
        }
        return key.toString();
    }

    private String read(Part part, Object argument) {
        Object value = argument;
        try {
            for (MethodHandle step : part.steps()) {
                if (value == null) {
                    break;
                }
                value = step.invoke(value);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new InvalidIdempotencyKeyException(Messages.keyUnreadable(where, part.label()) + ": " + e);
        }
        value = present(value);
        if (value == null) {
            throw new InvalidIdempotencyKeyException(Messages.invalidKeyPart(where, part.label(), "is null"));
        }
        String identityText = identityTextOf(value, 0);
        if (identityText != null) {
            throw new InvalidIdempotencyKeyException(Messages.invalidKeyPart(where, part.label(), "is " + identityText));
        }
        String text = value.toString();
        if (text.isEmpty()) {
            throw new InvalidIdempotencyKeyException(Messages.invalidKeyPart(where, part.label(), "is empty"));
        }
        if (text.isBlank()) {
            throw new InvalidIdempotencyKeyException(Messages.invalidKeyPart(where, part.label(), "is blank"));
        }
        if (text.length() > maxLength) {
            throw new InvalidIdempotencyKeyException(Messages.invalidKeyPart(where, part.label(),
                    "has " + text.length() + " characters; at most " + maxLength + " are allowed"));
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                throw new InvalidIdempotencyKeyException(Messages.invalidKeyPart(where, part.label(),
                        "is not printable US-ASCII"));
            }
        }
        return text;
    }

    /** @return an optional's value, {@code null} for an empty one: no key, not the text "Optional.empty" */
    private static Object present(Object value) {
        if (value instanceof Optional<?> optional) {
            return optional.orElse(null);
        }
        if (value instanceof OptionalInt optional) {
            return optional.isPresent() ? optional.getAsInt() : null;
        }
        if (value instanceof OptionalLong optional) {
            return optional.isPresent() ? optional.getAsLong() : null;
        }
        if (value instanceof OptionalDouble optional) {
            return optional.isPresent() ? optional.getAsDouble() : null;
        }
        return value;
    }

    private static List<MethodHandle> steps(String where, int index, Class<?> type, String path) {
        List<MethodHandle> steps = new ArrayList<>();
        Class<?> current = type;
        for (String name : path.split("\\.", -1)) {
            MethodHandle step = name.isEmpty() ? null : step(current, name);
            if (step == null) {
                throw new IdempotencyDefinitionException(Messages.unknownKeyProperty(where, index, path, name, current.getName()));
            }
            steps.add(step);
            current = step.type().returnType();
        }
        return List.copyOf(steps);
    }

    private static MethodHandle step(Class<?> type, String name) {
        String capitalized = name.substring(0, 1).toUpperCase(Locale.ROOT) + name.substring(1);
        for (String candidate : new String[] {"get" + capitalized, "is" + capitalized, name}) {
            Method getter = publicNoArgMethod(type, candidate);
            if (getter != null && (!candidate.equals(name) || isRecordComponent(type, name))) {
                return handle(getter);
            }
        }
        try {
            Field field = type.getField(name);
            if (!Modifier.isStatic(field.getModifiers())) {
                field.trySetAccessible();
                return MethodHandles.lookup().unreflectGetter(field).asType(MethodType.methodType(field.getType(), Object.class));
            }
        } catch (NoSuchFieldException | IllegalAccessException e) {
            // not a field either
        }
        if (isJmsMessage(type)) {
            Method property = publicMethod(type, "getStringProperty", String.class);
            if (property != null) {
                return MethodHandles.insertArguments(handle(property), 1, name);
            }
        }
        return null;
    }

    private static Method publicNoArgMethod(Class<?> type, String name) {
        Method method = publicMethod(type, name);
        return method != null && method.getReturnType() != void.class && !Modifier.isStatic(method.getModifiers()) ? method : null;
    }

    private static Method publicMethod(Class<?> type, String name, Class<?>... parameterTypes) {
        try {
            return type.getMethod(name, parameterTypes);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    private static boolean isRecordComponent(Class<?> type, String name) {
        if (!type.isRecord()) {
            return false;
        }
        for (RecordComponent component : type.getRecordComponents()) {
            if (component.getName().equals(name)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isJmsMessage(Class<?> type) {
        if (type.getName().equals(JMS_MESSAGE)) {
            return true;
        }
        for (Class<?> contract : type.getInterfaces()) {
            if (isJmsMessage(contract)) {
                return true;
            }
        }
        return type.getSuperclass() != null && isJmsMessage(type.getSuperclass());
    }

    private static MethodHandle handle(Method method) {
        try {
            method.trySetAccessible();
            MethodHandle handle = MethodHandles.lookup().unreflect(method);
            return handle.asType(handle.type().changeParameterType(0, Object.class));
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(method + " is not accessible", e);
        }
    }
}
