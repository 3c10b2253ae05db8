package dev.idempotency.jaxrs.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringReader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

import jakarta.json.Json;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * RFC 8785 (JCS) as the JSON fingerprint uses it, checked against the RFC's own examples: the
 * number serialisation table of Appendix B, the sample of section 3.2.2 and the sorting sample of
 * section 3.2.3.
 */
class CanonicalJsonTest {

    private static String canonical(String json) {
        try (JsonReader reader = Json.createReader(new StringReader(json))) {
            return new String(CanonicalJson.of(reader.readValue()), StandardCharsets.UTF_8);
        }
    }

    @ParameterizedTest(name = "{0} is written {1}")
    @CsvSource({
        "0000000000000000, 0",
        "8000000000000000, 0",
        "0000000000000001, 5e-324",
        "8000000000000001, -5e-324",
        "7fefffffffffffff, 1.7976931348623157e+308",
        "ffefffffffffffff, -1.7976931348623157e+308",
        "4340000000000000, 9007199254740992",
        "c340000000000000, -9007199254740992",
        "4430000000000000, 295147905179352830000",
        "44b52d02c7e14af5, 9.999999999999997e+22",
        "44b52d02c7e14af6, 1e+23",
        "44b52d02c7e14af7, 1.0000000000000001e+23",
        "444b1ae4d6e2ef4e, 999999999999999700000",
        "444b1ae4d6e2ef4f, 999999999999999900000",
        "444b1ae4d6e2ef50, 1e+21",
        "3eb0c6f7a0b5ed8c, 9.999999999999997e-7",
        "3eb0c6f7a0b5ed8d, 0.000001",
        "41b3de4355555553, 333333333.3333332",
        "41b3de4355555554, 333333333.33333325",
        "41b3de4355555555, 333333333.3333333",
        "41b3de4355555556, 333333333.3333334",
        "41b3de4355555557, 333333333.33333343",
        "becbf647612f3696, -0.0000033333333333333333",
        "43143ff3c1cb0959, 1424953923781206.2"})
    void everyNumberOfTheRfcsAppendixBIsWrittenAsTheRfcSays(String ieee754, String expected) {
        double value = Double.longBitsToDouble(Long.parseUnsignedLong(ieee754, 16));

        assertThat(EcmaScriptNumbers.toString(value)).isEqualTo(expected);
        assertThat(canonical(new BigDecimal(value).toString())).as("read from JSON").isEqualTo(expected);
    }

    @Test
    void nanAndTheInfinitiesHaveNoJsonForm() {
        assertThatThrownBy(() -> EcmaScriptNumbers.toString(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EcmaScriptNumbers.toString(Double.POSITIVE_INFINITY))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theShortestDigitsAreFoundWhereJava17sDoubleToStringGivesMore() {
        // JDK-4511638: Java 17 writes 2.0E-3 as expected, but these with a digit too many
        assertThat(EcmaScriptNumbers.toString(2.82879384806159E17)).isEqualTo("282879384806159000");
        assertThat(EcmaScriptNumbers.toString(1.0E23)).isEqualTo("1e+23");
        assertThat(EcmaScriptNumbers.toString(2e-3)).isEqualTo("0.002");
        assertThat(EcmaScriptNumbers.toString(5e-324)).isEqualTo("5e-324");
        assertThat(EcmaScriptNumbers.toString(123e-20)).isEqualTo("1.23e-18");
        assertThat(EcmaScriptNumbers.toString(0.1 + 0.2)).isEqualTo("0.30000000000000004");
        assertThat(EcmaScriptNumbers.toString(100)).isEqualTo("100");
        assertThat(EcmaScriptNumbers.toString(1e21)).isEqualTo("1e+21");
        assertThat(EcmaScriptNumbers.toString(1.5)).isEqualTo("1.5");
    }

    @Test
    @EnabledForJreRange(min = JRE.JAVA_19)
    void theDigitsAreThoseOfJava19sDoubleToStringWhichIsShortestAndClosestToo() {
        // JDK-4511638, fixed in 19: Double.toString gives the shortest decimal, the closest of two
        SplittableRandom random = new SplittableRandom(8785);
        for (int i = 0; i < 50_000; i++) {
            double value = i % 2 == 0 ? Double.longBitsToDouble(random.nextLong())
                    : random.nextInt(10_000_000) / Math.pow(10, random.nextInt(12));
            if (Double.isFinite(value)) {
                assertThat(new BigDecimal(EcmaScriptNumbers.toString(value)))
                        .as("%s", value).isEqualByComparingTo(new BigDecimal(Double.toString(value)));
            }
        }
    }

    @Test
    void theSampleOfSection322IsWrittenAsTheRfcShowsIt() {
        String input = """
                {
                  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
                  "string": "\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\"\\/",
                  "literals": [null, true, false]
                }""";

        assertThat(canonical(input)).isEqualTo("{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,"
                + "1e+30,4.5,0.002,1e-27],\"string\":\"\u20ac$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}");
    }

    @Test
    void theSampleOfSection322IsTheRfcsBytes() {
        String input = "{\"numbers\": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],"
                + "\"string\": \"\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\\"\\/\",\"literals\": [null, true, false]}";
        String hex = """
                7b 22 6c 69 74 65 72 61 6c 73 22 3a 5b 6e 75 6c 6c 2c 74 72
                75 65 2c 66 61 6c 73 65 5d 2c 22 6e 75 6d 62 65 72 73 22 3a
                5b 33 33 33 33 33 33 33 33 33 2e 33 33 33 33 33 33 33 2c 31
                65 2b 33 30 2c 34 2e 35 2c 30 2e 30 30 32 2c 31 65 2d 32 37
                5d 2c 22 73 74 72 69 6e 67 22 3a 22 e2 82 ac 24 5c 75 30 30
                30 66 5c 6e 41 27 42 5c 22 5c 5c 5c 5c 5c 22 2f 22 7d""";
        try (JsonReader reader = Json.createReader(new StringReader(input))) {
            byte[] bytes = CanonicalJson.of(reader.readValue());
            StringBuilder written = new StringBuilder();
            for (byte b : bytes) {
                written.append(String.format("%02x", b & 0xff));
            }
            assertThat(written.toString()).isEqualTo(hex.replaceAll("\\s+", ""));
        }
    }

    @Test
    void membersAreSortedByTheirUtf16CodeUnitsAsInSection323() {
        String input = """
                {
                  "\\u20ac": "Euro Sign",
                  "\\r": "Carriage Return",
                  "\\ufb33": "Hebrew Letter Dalet With Dagesh",
                  "1": "One",
                  "\\ud83d\\ude00": "Emoji: Grinning Face",
                  "\\u0080": "Control",
                  "\\u00f6": "Latin Small Letter O With Diaeresis"
                }""";

        assertThat(canonical(input)).isEqualTo("{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\","
                + "\"\u00f6\":\"Latin Small Letter O With Diaeresis\",\"\u20ac\":\"Euro Sign\","
                + "\"\ud83d\ude00\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}");
    }

    @Test
    void nestedStructuresAreSortedAtEveryLevelAndArraysKeepTheirOrder() {
        assertThat(canonical("{\"1\":{\"f\":{\"f\":\"hi\",\"F\":5},\"\\n\":56.0},\"10\":{},\"\":\"empty\",\"a\":{},"
                + "\"111\":[{\"e\":\"yes\",\"E\":\"no\"}],\"A\":{}}"))
                .isEqualTo("{\"\":\"empty\",\"1\":{\"\\n\":56,\"f\":{\"F\":5,\"f\":\"hi\"}},\"10\":{},\"111\":[{\"E\":\"no\","
                        + "\"e\":\"yes\"}],\"A\":{},\"a\":{}}");
        assertThat(canonical("[3, 1, [2, {\"b\": 1, \"a\": 2}]]")).isEqualTo("[3,1,[2,{\"a\":2,\"b\":1}]]");
    }

    @Test
    void onlyQuotesBackslashesAndControlCharactersAreEscaped() {
        assertThat(canonical("\"\\u0000\\u0008\\u0009\\u000a\\u000c\\u000d\\u001f\\u007f</script>\\u2028\""))
                .isEqualTo("\"\\u0000\\b\\t\\n\\f\\r\\u001f\u007f</script>\u2028\"");
    }

    @Test
    void whatIsNoIJsonStaysDistinctInsteadOfFailing() {
        assertThat(canonical("[1e400, 10e399, -1e400]")).as("beyond the double range: the exact value")
                .isEqualTo("[1E+400,1E+400,-1E+400]");
        assertThat(canonical("\"\\ud800\"")).as("a lone surrogate, escaped").isEqualTo("\"\\ud800\"");
        assertThat(canonical("\"\\ud800\"")).isNotEqualTo(canonical("\"?\"")).isNotEqualTo(canonical("\"\\ufffd\""));
        assertThat(canonical("[-0, 0.0, -0.0]")).isEqualTo("[0,0,0]");
    }

    @Test
    void numbersThatAreOneDoubleHaveOneForm() {
        JsonValue[] values = {Json.createValue(4.5), Json.createValue(new BigDecimal("4.50")),
            Json.createValue(new BigDecimal("45e-1"))};
        for (JsonValue value : values) {
            assertThat(new String(CanonicalJson.of(value), StandardCharsets.UTF_8)).isEqualTo("4.5");
        }
    }
}
