package dev.idempotency.invocation;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Type;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import jakarta.json.bind.adapter.JsonbAdapter;
import jakarta.json.bind.annotation.JsonbProperty;
import jakarta.json.bind.annotation.JsonbTransient;
import jakarta.json.bind.annotation.JsonbTypeAdapter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Equal arguments whose sets and maps iterate in another order give the same JSON; others stay apart. */
class ArgumentCanonTest {

    static final ResultCodec CODEC = new ResultCodec();

    public record Line(String sku, int quantity) {
    }

    public record Tagged(String id, @JsonbProperty("labels") Set<String> tags, Map<Integer, Set<Line>> byWarehouse) {
    }

    public record Page<T>(List<T> items) {
    }

    /** A bean JSON-B reads through its getters. */
    public static class Basket {
        private Set<Line> lines;

        public Set<Line> getLines() {
            return lines;
        }

        public void setLines(Set<Line> lines) {
            this.lines = lines;
        }
    }

    /** A record whose set sits beside a number longer than JSON-P converts (an RSA-4096 modulus). */
    public record Keyed(BigInteger modulus, Set<String> uses) {
    }

    /** A public field and a getter of one name: JSON-B writes the getter's list, whose order counts. */
    public static class Tags {
        public Set<String> tags;
        private List<String> ordered;

        public List<String> getTags() {
            return ordered;
        }

        Tags(List<String> ordered) {
            this.ordered = ordered;
        }
    }

    /** A public set field in a child, a getter of the name (a list) in its parent: JSON-B writes the list. */
    public static class Parent {
        private final List<String> steps;

        Parent(List<String> steps) {
            this.steps = steps;
        }

        public List<String> getTags() {
            return steps;
        }
    }

    public static class Child extends Parent {
        public Set<String> tags;

        Child(List<String> steps) {
            super(steps);
        }
    }

    /** Writes a map as a flat list [name, value, name, value, ...]. */
    public static class FlatMap implements JsonbAdapter<Map<String, Integer>, List<Object>> {
        @Override
        public List<Object> adaptToJson(Map<String, Integer> map) {
            List<Object> flat = new java.util.ArrayList<>();
            map.forEach((name, value) -> {
                flat.add(name);
                flat.add(value);
            });
            return flat;
        }

        @Override
        public Map<String, Integer> adaptFromJson(List<Object> flat) {
            throw new UnsupportedOperationException();
        }
    }

    public record Flattened(@JsonbTypeAdapter(FlatMap.class) Map<String, Integer> limits) {
    }

    /** An interface whose default getter a record's component shares its name with. */
    public interface HasTags {
        default List<String> getTags() {
            return List.of("from the interface");
        }
    }

    /** An interface whose getters rename a record's components: its list takes the set's name. */
    public interface View {
        @JsonbTransient
        Set<String> getTags();

        @JsonbProperty("tags")
        List<String> getSteps();
    }

    public record Viewed(Set<String> tags, List<String> steps) implements View {
        @Override
        @JsonbTransient
        public Set<String> getTags() {
            return tags;
        }

        @Override
        @JsonbTransient
        public List<String> getSteps() {
            return steps;
        }
    }

    /** JSON-B may write the interface's list under this set's name: not planned. */
    public record Shadowed(Set<String> tags) implements HasTags {
    }

    static Map<Object, String> anyKeys() {
        return null;
    }

    static Tagged tagged() {
        return null;
    }

    static Page<Set<String>> pageOfSets() {
        return null;
    }

    static Optional<Map<String, Integer>> optionalMap() {
        return null;
    }

    static List<Line> plainList() {
        return null;
    }

    private static Type type(String method) throws NoSuchMethodException {
        return ArgumentCanonTest.class.getDeclaredMethod(method).getGenericReturnType();
    }

    private static String canonical(Object value, Type type) {
        return new String(ArgumentCanon.of(type).apply(CODEC.write(value, type)), StandardCharsets.UTF_8);
    }

    @SafeVarargs
    private static <T> Set<T> ordered(T... elements) {
        return new LinkedHashSet<>(List.of(elements));
    }

    @AfterAll
    static void close() {
        CODEC.close();
    }

    @Test
    void setsAndMapsAtAnyDepthTheTypeShowsAreInOneOrder() throws Exception {
        Map<Integer, Set<Line>> one = new LinkedHashMap<>();
        one.put(2, ordered(new Line("b", 1), new Line("a", 2)));
        one.put(10, ordered(new Line("c", 3)));
        Map<Integer, Set<Line>> other = new LinkedHashMap<>();
        other.put(10, ordered(new Line("c", 3)));
        other.put(2, ordered(new Line("a", 2), new Line("b", 1)));

        String first = canonical(new Tagged("t", ordered("vip", "eu"), one), type("tagged"));
        String second = canonical(new Tagged("t", ordered("eu", "vip"), other), type("tagged"));

        assertThat(first).isEqualTo(second).contains("\"labels\":[\"eu\",\"vip\"]");
        assertThat(canonical(new Tagged("t", ordered("eu"), one), type("tagged"))).as("another set").isNotEqualTo(first);
        assertThat(canonical(new Page<>(List.of(ordered("x", "y"), ordered("z"))), type("pageOfSets")))
                .isEqualTo(canonical(new Page<>(List.of(ordered("y", "x"), ordered("z"))), type("pageOfSets")))
                .as("a list keeps its order")
                .isNotEqualTo(canonical(new Page<>(List.of(ordered("z"), ordered("y", "x"))), type("pageOfSets")));
        Map<String, Integer> ab = new LinkedHashMap<>(Map.of("a", 1));
        ab.put("b", 2);
        Map<String, Integer> ba = new LinkedHashMap<>(Map.of("b", 2));
        ba.put("a", 1);
        assertThat(canonical(Optional.of(ab), type("optionalMap"))).isEqualTo(canonical(Optional.of(ba), type("optionalMap")))
                .isEqualTo("{\"a\":1,\"b\":2}");
        assertThat(ArgumentCanon.of(Basket.class).reorders())
                .as("a bean: what JSON-B writes is not certain from the declaration").isFalse();
    }

    /** What must never hash alike: that would replay one call's result to another. */
    @Test
    void argumentsThatDifferNeverComeOutAlike() throws Exception {
        Map<Object, String> twoKeysWrittenAlike = new LinkedHashMap<>();
        twoKeysWrittenAlike.put(1, "a");
        twoKeysWrittenAlike.put("1", "b");
        Map<Object, String> oneKey = new LinkedHashMap<>(Map.of("1", "b"));
        assertThat(canonical(twoKeysWrittenAlike, type("anyKeys"))).isNotEqualTo(canonical(oneKey, type("anyKeys")));
        Map<Object, String> valuesSwapped = new LinkedHashMap<>();
        valuesSwapped.put(1, "b");
        valuesSwapped.put("1", "a");
        assertThat(canonical(twoKeysWrittenAlike, type("anyKeys"))).as("two keys of one name, their values swapped")
                .isNotEqualTo(canonical(valuesSwapped, type("anyKeys")));
        assertThat(canonical(new Viewed(Set.of("x"), List.of("a", "b")), Viewed.class))
                .as("a list an interface's getter renames to a set's name")
                .isNotEqualTo(canonical(new Viewed(Set.of("x"), List.of("b", "a")), Viewed.class));

        assertThat(canonical(new Tags(List.of("a", "b")), Tags.class)).as("a getter's list keeps its order")
                .isNotEqualTo(canonical(new Tags(List.of("b", "a")), Tags.class));
        assertThat(canonical(new Child(List.of("a", "b")), Child.class)).as("a parent's getter's list keeps its order")
                .isNotEqualTo(canonical(new Child(List.of("b", "a")), Child.class));
        Map<String, Integer> ab = new LinkedHashMap<>();
        ab.put("a", 1);
        ab.put("b", 2);
        Map<String, Integer> swapped = new LinkedHashMap<>();
        swapped.put("a", 2);
        swapped.put("b", 1);
        assertThat(canonical(new Flattened(ab), Flattened.class)).as("a map an adapter writes as a flat list")
                .isNotEqualTo(canonical(new Flattened(swapped), Flattened.class));
        assertThat(ArgumentCanon.of(Shadowed.class).reorders()).as("a component a default getter could stand for")
                .isFalse();
    }

    @Test
    void numbersKeepTheirTextWhateverTheirLength() {
        BigInteger modulus = BigInteger.ONE.shiftLeft(4096).subtract(BigInteger.valueOf(159));

        String one = canonical(new Keyed(modulus, ordered("sign", "encrypt")), Keyed.class);

        assertThat(one).isEqualTo(canonical(new Keyed(modulus, ordered("encrypt", "sign")), Keyed.class))
                .contains(modulus.toString());
    }

    @Test
    void anArgumentWithoutSetsOrMapsIsLeftAsJsonBWroteIt() throws Exception {
        byte[] written = CODEC.write(List.of(new Line("b", 1), new Line("a", 2)), type("plainList"));

        ArgumentCanon canon = ArgumentCanon.of(type("plainList"));

        assertThat(canon.reorders()).isFalse();
        assertThat(canon.apply(written)).isSameAs(written);
        assertThat(ArgumentCanon.of(type("tagged")).reorders()).isTrue();
    }
}
