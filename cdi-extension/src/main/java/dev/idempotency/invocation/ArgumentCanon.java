package dev.idempotency.invocation;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import jakarta.json.JsonWriter;
import jakarta.json.bind.annotation.JsonbProperty;
import jakarta.json.bind.annotation.JsonbTransient;

/**
 * Puts an argument's JSON in one order where its declared type says the order is not content: a
 * {@code Set}'s elements and a {@code Map}'s entries, at any depth the type shows (elements,
 * values, record components, bean properties). JSON-B writes them in their iteration order,
 * which for {@code Set.of}, {@code Map.of} and hash-based collections differs from one JVM to the
 * next or with the order they were filled in: two equal arguments would fingerprint differently,
 * and a retry on another node would be refused as another request. Planned once per parameter at
 * deployment from its generic type; an argument whose type holds no set or map is left byte for
 * byte as JSON-B wrote it (its fingerprint is the one of earlier versions). A set or map behind a
 * type the declaration does not show ({@code Object}, an interface, {@code Collection}) keeps its
 * iteration order.
 */
public final class ArgumentCanon {

    private static final ArgumentCanon AS_WRITTEN = new ArgumentCanon(null);

    /** What to do with the JSON of one value; null where nothing below it is reordered. */
    private sealed interface Plan permits Sorted, Each, Entries, Properties {
    }

    /** A set: its elements planned, then sorted by their JSON text. */
    private record Sorted(Plan element) implements Plan {
    }

    /** A list or array: its elements planned, in their order. */
    private record Each(Plan element) implements Plan {
    }

    /** A map: its values planned, its members (or, for keys that are not strings, its entries) sorted. */
    private record Entries(Plan value) implements Plan {
    }

    /** An object with properties: those named planned, in JSON-B's order. */
    private record Properties(Map<String, Plan> properties) implements Plan {
    }

    private final Plan plan;

    private ArgumentCanon(Plan plan) {
        this.plan = plan;
    }

    /**
     * @param type a parameter's generic type
     * @return how to put its JSON in one order
     */
    public static ArgumentCanon of(Type type) {
        Plan plan = plan(type, Map.of(), new HashSet<>());
        return plan == null ? AS_WRITTEN : new ArgumentCanon(plan);
    }

    /** @return whether this argument's JSON is rewritten (its type holds a set or a map) */
    public boolean reorders() {
        return plan != null;
    }

    /**
     * @param json what JSON-B wrote for the argument
     * @return the same JSON with sets and maps in one order, or {@code json} itself where there are none
     */
    public byte[] apply(byte[] json) {
        if (plan == null) {
            return json;
        }
        JsonValue value;
        try (JsonReader reader = Json.createReader(new ByteArrayInputStream(json))) {
            value = reader.readValue();
        }
        return bytes(canonical(value, plan));
    }

    private static JsonValue canonical(JsonValue value, Plan plan) {
        if (plan == null) {
            return value;
        }
        if (value instanceof JsonArray array) {
            if (plan instanceof Sorted sorted) {
                return sortedArray(array, element -> canonical(element, sorted.element()));
            }
            if (plan instanceof Each each) {
                JsonArrayBuilder builder = Json.createArrayBuilder();
                array.forEach(element -> builder.add(canonical(element, each.element())));
                return builder.build();
            }
            if (plan instanceof Entries entries) {
                // a map whose keys are not strings: an array of entries (key and value), sorted
                return sortedArray(array, entry -> entry instanceof JsonObject object && object.containsKey("value")
                        ? Json.createObjectBuilder(object).add("value", canonical(object.get("value"), entries.value())).build()
                        : entry);
            }
            return value;
        }
        if (value instanceof JsonObject object) {
            if (plan instanceof Entries entries) {
                JsonObjectBuilder builder = Json.createObjectBuilder();
                object.keySet().stream().sorted()
                        .forEach(name -> builder.add(name, canonical(object.get(name), entries.value())));
                return builder.build();
            }
            if (plan instanceof Properties properties) {
                JsonObjectBuilder builder = Json.createObjectBuilder();
                object.forEach((name, member) -> builder.add(name, canonical(member, properties.properties().get(name))));
                return builder.build();
            }
        }
        return value;
    }

    private static JsonArray sortedArray(JsonArray array, UnaryOperator<JsonValue> each) {
        List<JsonValue> elements = new ArrayList<>(array.size());
        List<String> texts = new ArrayList<>(array.size());
        for (JsonValue element : array) {
            JsonValue done = each.apply(element);
            elements.add(done);
            texts.add(new String(bytes(done), StandardCharsets.UTF_8));
        }
        Integer[] order = new Integer[elements.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> texts.get(a).compareTo(texts.get(b)));
        JsonArrayBuilder builder = Json.createArrayBuilder();
        for (int i : order) {
            builder.add(elements.get(i));
        }
        return builder.build();
    }

    private static byte[] bytes(JsonValue value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonWriter writer = Json.createWriter(out)) {
            writer.write(value);
        }
        return out.toByteArray();
    }

    // Planning, once per parameter at deployment.

    /**
     * @param type a declared type
     * @param variables what the type variables of the enclosing declarations stand for
     * @param visiting the classes being planned (a type that holds itself is planned once)
     * @return its plan, or null when nothing in it is reordered
     */
    private static Plan plan(Type type, Map<TypeVariable<?>, Type> variables, Set<Class<?>> visiting) {
        if (type instanceof TypeVariable<?> variable) {
            Type bound = variables.get(variable);
            return bound == null ? null : plan(bound, Map.of(), visiting);
        }
        if (type instanceof GenericArrayType array) {
            return each(plan(array.getGenericComponentType(), variables, visiting));
        }
        Class<?> raw = rawClass(type);
        if (raw == null || raw.isPrimitive() || raw.isEnum()) {
            return null;
        }
        Type[] arguments = type instanceof ParameterizedType parameterized
                ? resolved(parameterized.getActualTypeArguments(), variables) : new Type[0];
        if (raw.isArray()) {
            return each(plan(raw.getComponentType(), variables, visiting));
        }
        if (raw == Optional.class) {
            return arguments.length == 1 ? plan(arguments[0], variables, visiting) : null;
        }
        if (Set.class.isAssignableFrom(raw)) {
            return new Sorted(arguments.length == 1 ? plan(arguments[0], variables, visiting) : null);
        }
        if (Map.class.isAssignableFrom(raw)) {
            return new Entries(arguments.length == 2 ? plan(arguments[1], variables, visiting) : null);
        }
        if (Collection.class.isAssignableFrom(raw)) {
            return each(arguments.length == 1 ? plan(arguments[0], variables, visiting) : null);
        }
        if (isPlatform(raw) || raw.isInterface() || !visiting.add(raw)) {
            return null;
        }
        try {
            Map<TypeVariable<?>, Type> own = new HashMap<>();
            TypeVariable<?>[] parameters = raw.getTypeParameters();
            for (int i = 0; i < parameters.length && i < arguments.length; i++) {
                own.put(parameters[i], arguments[i]);
            }
            Map<String, Plan> properties = new LinkedHashMap<>();
            properties(raw).forEach((name, propertyType) -> {
                Plan planned = plan(propertyType, own, visiting);
                if (planned != null) {
                    properties.put(name, planned);
                }
            });
            return properties.isEmpty() ? null : new Properties(properties);
        } finally {
            visiting.remove(raw);
        }
    }

    private static Plan each(Plan element) {
        return element == null ? null : new Each(element);
    }

    private static Type[] resolved(Type[] arguments, Map<TypeVariable<?>, Type> variables) {
        Type[] resolved = arguments.clone();
        for (int i = 0; i < resolved.length; i++) {
            if (resolved[i] instanceof TypeVariable<?> variable && variables.containsKey(variable)) {
                resolved[i] = variables.get(variable);
            }
        }
        return resolved;
    }

    private static Class<?> rawClass(Type type) {
        if (type instanceof Class<?> plain) {
            return plain;
        }
        if (type instanceof ParameterizedType parameterized && parameterized.getRawType() instanceof Class<?> raw) {
            return raw;
        }
        return null; // a wildcard: its runtime type is unknown here
    }

    private static boolean isPlatform(Class<?> type) {
        String name = type.getName();
        return name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jakarta.");
    }

    /**
     * @return the properties JSON-B writes for a class, by their JSON name: a record's components;
     *     else public fields and public getters, up the superclasses ({@code @JsonbProperty} renames,
     *     {@code @JsonbTransient} leaves out)
     */
    private static Map<String, Type> properties(Class<?> type) {
        try {
            return declaredProperties(type);
        } catch (LinkageError | SecurityException e) {
            return Map.of(); // a member's type cannot be loaded here: JSON-B's order is kept for this class
        }
    }

    private static Map<String, Type> declaredProperties(Class<?> type) {
        Map<String, Type> properties = new LinkedHashMap<>();
        if (type.isRecord()) {
            for (RecordComponent component : type.getRecordComponents()) {
                Field field = field(type, component.getName());
                if (!transientProperty(component.getAccessor(), field)) {
                    properties.put(jsonName(component.getName(), component.getAccessor(), field), component.getGenericType());
                }
            }
            return properties;
        }
        for (Class<?> level = type; level != null && level != Object.class; level = level.getSuperclass()) {
            for (Field field : level.getDeclaredFields()) {
                int modifiers = field.getModifiers();
                if (Modifier.isPublic(modifiers) && !Modifier.isStatic(modifiers) && !transientProperty(null, field)) {
                    properties.putIfAbsent(jsonName(field.getName(), null, field), field.getGenericType());
                }
            }
            for (Method method : level.getDeclaredMethods()) {
                String property = getterProperty(method);
                if (property != null) {
                    Field field = field(level, property);
                    if (!transientProperty(method, field)) {
                        properties.putIfAbsent(jsonName(property, method, field), method.getGenericReturnType());
                    }
                }
            }
        }
        return properties;
    }

    private static String getterProperty(Method method) {
        int modifiers = method.getModifiers();
        if (!Modifier.isPublic(modifiers) || Modifier.isStatic(modifiers) || method.getParameterCount() != 0
                || method.isSynthetic() || method.isBridge()) {
            return null;
        }
        String name = method.getName();
        String rest = name.startsWith("get") ? name.substring(3)
                : name.startsWith("is") && (method.getReturnType() == boolean.class || method.getReturnType() == Boolean.class)
                        ? name.substring(2) : null;
        if (rest == null || rest.isEmpty() || name.equals("getClass")) {
            return null;
        }
        return Character.toLowerCase(rest.charAt(0)) + rest.substring(1);
    }

    private static Field field(Class<?> type, String name) {
        try {
            return type.getDeclaredField(name);
        } catch (NoSuchFieldException e) {
            return null;
        }
    }

    private static boolean transientProperty(Method accessor, Field field) {
        return (accessor != null && accessor.isAnnotationPresent(JsonbTransient.class))
                || (field != null && field.isAnnotationPresent(JsonbTransient.class));
    }

    private static String jsonName(String name, Method accessor, Field field) {
        JsonbProperty renamed = accessor == null ? null : accessor.getAnnotation(JsonbProperty.class);
        if ((renamed == null || renamed.value().isEmpty()) && field != null) {
            renamed = field.getAnnotation(JsonbProperty.class);
        }
        return renamed == null || renamed.value().isEmpty() ? name : renamed.value();
    }
}
