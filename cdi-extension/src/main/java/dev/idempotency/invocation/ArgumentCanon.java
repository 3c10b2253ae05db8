package dev.idempotency.invocation;

import java.io.ByteArrayInputStream;
import java.lang.reflect.AnnotatedElement;
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
import jakarta.json.bind.annotation.JsonbProperty;
import jakarta.json.bind.annotation.JsonbTransient;
import jakarta.json.bind.annotation.JsonbTypeAdapter;
import jakarta.json.bind.annotation.JsonbTypeSerializer;
import jakarta.json.stream.JsonParser;

import dev.idempotency.internal.JsonText;

/**
 * Puts an argument's JSON in one order where its declared type says the order is not content: a
 * {@code Set}'s elements and a {@code Map}'s entries, at any depth the type shows with certainty
 * (the elements of arrays, collections and {@code Optional}s, a map's values, a record's
 * components). JSON-B writes them in their iteration order, which for {@code Set.of},
 * {@code Map.of} and hash-based collections differs from one JVM to the next or with the order
 * they were filled in: two equal arguments would fingerprint differently, and a retry on another
 * node would be refused as another request. Planned once per parameter at deployment from its
 * generic type; an argument whose type holds no set or map is left byte for byte as JSON-B wrote
 * it (its fingerprint is the one of earlier versions).
 *
 * <p>Only where the plan is certain to match what JSON-B writes: sorting a list JSON-B wrote
 * under a set's name would make two different requests one (a replay of the wrong answer), while
 * a set left in its iteration order at worst refuses a retry. So a bean's properties (which JSON-B
 * merges from fields and getters across classes, interfaces and the runtime subclass) are not
 * planned, nor a member JSON-B is told to write its own way ({@code @JsonbTypeAdapter},
 * {@code @JsonbTypeSerializer}), nor a record that implements an interface with a getter (JSON-B
 * takes those, and their annotations, as its properties), nor a set or map behind a type the declaration does not show ({@code Object}, an
 * interface, {@code Collection}): they keep their iteration order.
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
        Plan plan;
        try {
            plan = new Planner().plan(type, Map.of());
        } catch (RuntimeException | LinkageError e) {
            plan = null; // a type that cannot be read whole here: JSON-B's order, as before sets were sorted
        }
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
        Node value;
        try (JsonParser parser = Json.createParser(new ByteArrayInputStream(json))) {
            parser.next();
            value = read(parser);
        }
        StringBuilder out = new StringBuilder(json.length + 16);
        canonical(value, plan).write(out);
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * JSON as read, kept whole: an object keeps every member, even two of one name (a map whose
     * keys {@code 1} and {@code "1"} JSON-B writes alike: a JSON-P object would keep one, and two
     * maps that differ would hash alike), and a number keeps its text (no conversion, no limit).
     */
    private sealed interface Node permits Scalar, Array, Members {
        void write(StringBuilder out);
    }

    /** A string (as its JSON text), number, true, false or null. */
    private record Scalar(String json) implements Node {
        @Override
        public void write(StringBuilder out) {
            out.append(json);
        }
    }

    private record Array(List<Node> elements) implements Node {
        @Override
        public void write(StringBuilder out) {
            out.append('[');
            for (int i = 0; i < elements.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                elements.get(i).write(out);
            }
            out.append(']');
        }
    }

    private record Member(String name, Node value) {
    }

    private record Members(List<Member> members) implements Node {
        @Override
        public void write(StringBuilder out) {
            out.append('{');
            for (int i = 0; i < members.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                JsonText.quoted(members.get(i).name(), out);
                out.append(':');
                members.get(i).value().write(out);
            }
            out.append('}');
        }
    }

    /** @param parser positioned on a value's first event */
    private static Node read(JsonParser parser) {
        JsonParser.Event event = parser.currentEvent();
        switch (event) {
            case START_ARRAY -> {
                List<Node> elements = new ArrayList<>();
                while (parser.next() != JsonParser.Event.END_ARRAY) {
                    elements.add(read(parser));
                }
                return new Array(elements);
            }
            case START_OBJECT -> {
                List<Member> members = new ArrayList<>();
                while (parser.next() != JsonParser.Event.END_OBJECT) {
                    String name = parser.getString();
                    parser.next();
                    members.add(new Member(name, read(parser)));
                }
                return new Members(members);
            }
            case VALUE_STRING -> {
                StringBuilder text = new StringBuilder();
                JsonText.quoted(parser.getString(), text);
                return new Scalar(text.toString());
            }
            case VALUE_NUMBER -> {
                return new Scalar(parser.getString());
            }
            case VALUE_TRUE -> {
                return new Scalar("true");
            }
            case VALUE_FALSE -> {
                return new Scalar("false");
            }
            default -> {
                return new Scalar("null");
            }
        }
    }

    private static Node canonical(Node value, Plan plan) {
        if (plan == null) {
            return value;
        }
        if (value instanceof Array array) {
            if (plan instanceof Sorted sorted) {
                return sorted(array.elements(), element -> canonical(element, sorted.element()));
            }
            if (plan instanceof Each each) {
                return new Array(array.elements().stream().map(element -> canonical(element, each.element())).toList());
            }
            if (plan instanceof Entries entries) {
                // a map whose keys are not strings: an array of entries ({"key":..,"value":..}), sorted
                return sorted(array.elements(), entry -> entry instanceof Members object
                        ? new Members(object.members().stream().map(member -> member.name().equals("value")
                                ? new Member("value", canonical(member.value(), entries.value())) : member).toList())
                        : entry);
            }
            return value;
        }
        if (value instanceof Members object) {
            if (plan instanceof Entries entries) {
                List<Member> members = new ArrayList<>();
                List<String> names = new ArrayList<>();
                for (Member member : object.members()) {
                    members.add(new Member(member.name(), canonical(member.value(), entries.value())));
                    names.add(member.name());
                }
                // Two keys JSON-B writes under one name (1 and "1", 1 and 1L): which value is whose is
                // only in their order, which sorting would lose: such a map keeps its order.
                return new Members(names.stream().distinct().count() < names.size() ? members : inOrder(members, names));
            }
            if (plan instanceof Properties properties) {
                return new Members(object.members().stream().map(member -> new Member(member.name(),
                        canonical(member.value(), properties.properties().get(member.name())))).toList());
            }
        }
        return value;
    }

    private static Array sorted(List<Node> elements, UnaryOperator<Node> each) {
        List<Node> done = new ArrayList<>(elements.size());
        List<String> texts = new ArrayList<>(elements.size());
        for (Node element : elements) {
            Node canonical = each.apply(element);
            done.add(canonical);
            texts.add(text(canonical));
        }
        return new Array(inOrder(done, texts));
    }

    /** @return the items in the order of their texts */
    private static <T> List<T> inOrder(List<T> items, List<String> texts) {
        Integer[] order = new Integer[items.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> texts.get(a).compareTo(texts.get(b)));
        List<T> sorted = new ArrayList<>(order.length);
        for (int i : order) {
            sorted.add(items.get(i));
        }
        return sorted;
    }

    private static String text(Node node) {
        StringBuilder out = new StringBuilder();
        node.write(out);
        return out.toString();
    }

    // Planning, once per parameter at deployment.

    /**
     * Plans one parameter. Each class with its type arguments is planned once (a model whose
     * classes refer to each other every way would otherwise be planned once per path through it);
     * a class met again inside itself is not planned again there.
     */
    private static final class Planner {
        private final Set<Class<?>> visiting = new HashSet<>();
        private final Map<List<Object>, Optional<Plan>> planned = new HashMap<>();

        /**
         * @param type a declared type
         * @param variables what the type variables of the enclosing declaration stand for
         * @return its plan, or null when nothing in it is reordered
         */
        Plan plan(Type type, Map<TypeVariable<?>, Type> variables) {
            if (type instanceof TypeVariable<?> variable) {
                Type bound = variables.get(variable);
                return bound == null ? null : plan(bound, Map.of());
            }
            if (type instanceof GenericArrayType array) {
                return each(plan(array.getGenericComponentType(), variables));
            }
            Class<?> raw = rawClass(type);
            if (raw == null || raw.isPrimitive() || raw.isEnum() || writtenItsOwnWay(raw)) {
                return null;
            }
            Type[] arguments = type instanceof ParameterizedType parameterized
                    ? resolved(parameterized.getActualTypeArguments(), variables) : new Type[0];
            if (raw.isArray()) {
                return each(plan(raw.getComponentType(), variables));
            }
            if (raw == Optional.class) {
                return arguments.length == 1 ? plan(arguments[0], variables) : null;
            }
            if (Set.class.isAssignableFrom(raw)) {
                return new Sorted(arguments.length == 1 ? plan(arguments[0], variables) : null);
            }
            if (Map.class.isAssignableFrom(raw)) {
                return new Entries(arguments.length == 2 ? plan(arguments[1], variables) : null);
            }
            if (Collection.class.isAssignableFrom(raw)) {
                return each(arguments.length == 1 ? plan(arguments[0], variables) : null);
            }
            if (!raw.isRecord()) {
                // A bean's properties are what JSON-B makes of fields and getters across its
                // classes and interfaces (and of a subclass at run time): a plan read from the
                // declaration could sort a list JSON-B writes under a set's name. Only a record's
                // components are certain (its class is final).
                return null;
            }
            List<Object> identity = new ArrayList<>(List.of(raw));
            identity.addAll(Arrays.asList(arguments));
            Optional<Plan> known = planned.get(identity);
            if (known != null) {
                return known.orElse(null);
            }
            if (!visiting.add(raw)) {
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
                    Plan property = plan(propertyType, own);
                    if (property != null) {
                        properties.put(name, property);
                    }
                });
                Plan plan = properties.isEmpty() ? null : new Properties(properties);
                planned.put(identity, Optional.ofNullable(plan));
                return plan;
            } finally {
                visiting.remove(raw);
            }
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

    /**
     * @return a record's components by their JSON name ({@code @JsonbProperty} renames,
     *     {@code @JsonbTransient} leaves out), but none that JSON-B is told to write its own way
     *     (an adapter or a serializer); none of a record that implements an interface with a
     *     getter; empty when a member's type cannot be read here
     */
    private static Map<String, Type> properties(Class<?> record) {
        try {
            if (implementsAGetter(record)) {
                // JSON-B takes an interface's getters (abstract ones too) with their annotations as
                // the record's properties: a rename there can put a list under a set's name
                return Map.of();
            }
            Map<String, Type> properties = new LinkedHashMap<>();
            for (RecordComponent component : record.getRecordComponents()) {
                Field field = field(record, component.getName());
                Method accessor = component.getAccessor();
                if (!transientProperty(accessor, field) && !writtenItsOwnWay(accessor) && !writtenItsOwnWay(field)
                        && !writtenItsOwnWay(component)) {
                    properties.put(jsonName(component.getName(), accessor, field), component.getGenericType());
                }
            }
            return properties;
        } catch (LinkageError | RuntimeException e) {
            // a member's type cannot be loaded or read here (TypeNotPresentException, ...): JSON-B's order is kept
            return Map.of();
        }
    }

    /** @return whether an interface the class implements (or one above it) declares a getter */
    private static boolean implementsAGetter(Class<?> type) {
        List<Class<?>> interfaces = new ArrayList<>(List.of(type.getInterfaces()));
        for (int i = 0; i < interfaces.size(); i++) {
            Class<?> implemented = interfaces.get(i);
            interfaces.addAll(List.of(implemented.getInterfaces()));
            for (Method method : implemented.getDeclaredMethods()) {
                if (getterProperty(method) != null) {
                    return true;
                }
            }
        }
        return false;
    }

    /** @return whether JSON-B is told to write it its own way ({@code @JsonbTypeAdapter}, {@code @JsonbTypeSerializer}) */
    private static boolean writtenItsOwnWay(AnnotatedElement element) {
        return element != null && (element.isAnnotationPresent(JsonbTypeAdapter.class)
                || element.isAnnotationPresent(JsonbTypeSerializer.class));
    }

    /** @return the property a public getter ({@code getX}, {@code isX} of a boolean) stands for, or null */
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
        if (rest == null || rest.isEmpty()) {
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
