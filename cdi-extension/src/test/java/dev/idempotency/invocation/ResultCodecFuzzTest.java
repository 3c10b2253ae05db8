package dev.idempotency.invocation;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Function;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;

import dev.idempotency.fuzzdata.Receipts.Currency;
import dev.idempotency.fuzzdata.Receipts.Line;
import dev.idempotency.fuzzdata.Receipts.Receipt;

/**
 * Fuzzes the codec of non-HTTP results ({@link ResultCodec}, JSON-B): a value of any shape
 * {@link ResultShape} accepts (records, enums, JDK values, collections, maps, arrays, a top-level
 * {@code Optional}), with any content, is written deterministically and read back as an equal
 * value; {@code null} reads back as {@code null}, and as an empty {@code Optional} for an
 * {@code Optional} type. Writing or reading never throws.
 */
@Tag("fuzz")
class ResultCodecFuzzTest {

    /** The generic types to fuzz, as method return types (how the interceptor sees them). */
    interface Shapes {
        Receipt receipt();

        List<Receipt> receipts();

        Optional<Receipt> maybeReceipt();

        Optional<String> maybeText();

        Map<String, List<Long>> ledger();

        String text();

        long number();

        Integer boxed();

        BigDecimal amount();

        Currency currency();

        String[] texts();

        int[] numbers();

        Instant instant();
    }

    /** Sorted by name: a crash input must pick the same shape in another JVM. */
    private static final Method[] SHAPES = Arrays.stream(Shapes.class.getDeclaredMethods())
            .sorted(Comparator.comparing(Method::getName)).toArray(Method[]::new);

    private static final ResultCodec CODEC = new ResultCodec();

    @AfterAll
    static void close() {
        CODEC.close();
    }

    @FuzzTest(maxDuration = "15s")
    void valuesOfEverySupportedShapeRoundTrip(FuzzedDataProvider data) {
        Method shape = data.pickValue(SHAPES);
        Type type = shape.getGenericReturnType();
        ResultShape.of("fuzz", shape); // accepted at deployment, else it is no shape to round-trip
        boolean nullable = !shape.getReturnType().isPrimitive();
        Object value = nullable && data.consumeInt(0, 15) == 0 ? null : valueFor(shape.getName(), data);

        byte[] json = CODEC.write(value, type);

        assertThat(CODEC.write(value, type)).as("deterministic").isEqualTo(json);
        Object back = CODEC.read(json, type);
        if (value == null && shape.getReturnType() == Optional.class) {
            assertThat(back).isEqualTo(Optional.empty());
        } else {
            assertThat(back).as("read back from %s", new String(json, StandardCharsets.UTF_8))
                    .isEqualTo(value);
        }
    }

    private static Object valueFor(String shape, FuzzedDataProvider data) {
        return switch (shape) {
            case "receipt" -> receipt(data);
            case "receipts" -> list(data, ResultCodecFuzzTest::receipt);
            case "maybeReceipt" -> data.consumeBoolean() ? Optional.of(receipt(data)) : Optional.empty();
            case "maybeText" -> data.consumeBoolean() ? Optional.of(data.consumeString(40)) : Optional.empty();
            case "ledger" -> map(data, d -> list(d, FuzzedDataProvider::consumeLong));
            case "text" -> data.consumeString(200);
            case "number" -> data.consumeLong();
            case "boxed" -> data.consumeInt();
            case "amount" -> decimal(data);
            case "currency" -> data.pickValue(Currency.values());
            case "texts" -> list(data, d -> d.consumeString(20)).toArray(String[]::new);
            case "numbers" -> data.consumeInts(8);
            case "instant" -> instant(data);
            default -> throw new IllegalArgumentException(shape);
        };
    }

    private static Receipt receipt(FuzzedDataProvider data) {
        // Finite doubles: NaN and infinities are no JSON numbers (such a result is logged as not storable).
        return new Receipt(data.consumeString(20), data.consumeLong(), data.consumeRegularDouble(),
                data.consumeBoolean(), data.consumeBoolean() ? data.pickValue(Currency.values()) : null,
                list(data, d -> new Line(d.consumeString(10), d.consumeInt(), decimal(d))),
                map(data, d -> d.consumeString(20)),
                new TreeSet<>(list(data, FuzzedDataProvider::consumeInt)),
                instant(data), LocalDate.ofEpochDay(data.consumeLong(LocalDate.of(0, 1, 1).toEpochDay(),
                        LocalDate.of(9999, 12, 31).toEpochDay())),
                new UUID(data.consumeLong(), data.consumeLong()),
                BigInteger.valueOf(data.consumeLong()).multiply(BigInteger.valueOf(data.consumeLong())));
    }

    private static BigDecimal decimal(FuzzedDataProvider data) {
        return BigDecimal.valueOf(data.consumeLong(), data.consumeInt(-20, 20));
    }

    /** Years 0 to 9999 (four-digit ISO-8601 years), any nanosecond. */
    private static Instant instant(FuzzedDataProvider data) {
        return Instant.ofEpochSecond(data.consumeLong(-62_167_219_200L, 253_402_300_799L),
                data.consumeInt(0, 999_999_999));
    }

    private static <T> List<T> list(FuzzedDataProvider data, Function<FuzzedDataProvider, T> element) {
        List<T> list = new ArrayList<>();
        for (int i = data.consumeInt(0, 4); i > 0; i--) {
            list.add(element.apply(data));
        }
        return list;
    }

    private static <T> Map<String, T> map(FuzzedDataProvider data, Function<FuzzedDataProvider, T> value) {
        Map<String, T> map = new LinkedHashMap<>();
        for (int i = data.consumeInt(0, 4); i > 0; i--) {
            map.put(data.consumeString(10), value.apply(data));
        }
        return map;
    }
}
