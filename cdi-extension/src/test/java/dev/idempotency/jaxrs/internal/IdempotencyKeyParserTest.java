package dev.idempotency.jaxrs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdempotencyKeyParserTest {

    private final IdempotencyKeyParser parser = new IdempotencyKeyParser(255);

    @ParameterizedTest
    @ValueSource(strings = {"abc", "8e03978e-40d5-43e8-bc93-6894a57f9324", "a:b/c+d=e_f.g~h", "x"})
    void bareTokensAreKeys(String raw) {
        assertThat(parser.parse(raw).key()).isEqualTo(raw);
    }

    @Test
    void anSfStringIsUnquotedAndUnescaped() {
        assertThat(parser.parse("\"abc\"").key()).isEqualTo("abc");
        assertThat(parser.parse("\"a b,c\"").key()).isEqualTo("a b,c");
        assertThat(parser.parse("\"a\\\"b\\\\c\"").key()).isEqualTo("a\"b\\c");
        assertThat(parser.parse("  \"abc\"\t").key()).as("optional whitespace around the value").isEqualTo("abc");
    }

    @Test
    void theQuotedAndBareFormsOfAKeyAreTheSameKey() {
        assertThat(parser.parse("\"k-1\"").key()).isEqualTo(parser.parse("k-1").key());
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"abc\";v=1", "\"abc\";v", "\"abc\";  v=1", "\"abc\";a;b=?1;c=\"x;y, z\";d=-1.5;e=tok/en:x",
        "\"abc\";f=:YWJj:;g=@1700000000;h=%\"caf%c3%a9\";i=*;j_k.l-m*=0"})
    void anSfStringsParametersAreIgnored(String raw) {
        assertThat(parser.parse(raw).key()).as("an Item's parameters are not its value").isEqualTo("abc");
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"abc\";", "\"abc\";V=1", "\"abc\";v=", "\"abc\";v=1, \"def\"", "\"abc\" ;v=1",
        "\"abc\";v=1.2345", "\"abc\";v=\"x", "\"abc\";v=?2", "\"abc\";v=1234567890123456", "\"abc\";v=%\"%C3\"",
        "\"abc\";v=:a b:", "\"abc\";v=@1.5", "\"abc\";1=v", "\"abc\";v=%\"%ff\"", "\"abc\";v=%\"%c3\"",
        "\"abc\";v=:a=b:", "\"abc\";v=:Y:"})
    void anSfStringFollowedByWhatIsNoParameterIsRefused(String raw) {
        IdempotencyKeyParser.Result result = parser.parse(raw);

        assertThat(result.valid()).as("a joined or malformed value is never a key").isFalse();
        assertThat(result.error()).contains("parameters").doesNotContain("abc");
    }

    @Test
    void aBareKeyIsTakenWholeParametersOrNot() {
        assertThat(parser.parse("abc;v=1").key()).isEqualTo("abc;v=1");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "\"\"", "\"abc", "\"abc\"x", "\"a\\b\"", "\"a\u0001\"", "a b", "a,b", "a\"b",
        "a\\b", "caf\u00e9", "ctl\u0001", "cr\rlf\n", "\u007f", "\"caf\u00e9\""})
    void malformedKeysAreRefusedWithoutEchoingThem(String raw) {
        IdempotencyKeyParser.Result result = parser.parse(raw);

        assertThat(result.valid()).isFalse();
        assertThat(result.error()).isNotBlank();
        if (raw.trim().length() > 1) {
            assertThat(result.error()).doesNotContain(raw.trim());
        }
    }

    @Test
    void aKeyOfSpacesOnlyIsRefused() {
        assertThat(parser.parse("\"   \"").error()).as("what a client sends for a value it does not have")
                .contains("is blank");
        assertThat(parser.parse("\" a \"").key()).isEqualTo(" a ");
    }

    @Test
    void theMaximumLengthIsInclusive() {
        assertThat(parser.parse("k".repeat(255)).valid()).isTrue();
        assertThat(parser.parse("k".repeat(256)).error()).contains("256 characters").contains("at most 255");
        assertThat(parser.parse("\"" + "k".repeat(256) + "\"").valid()).as("the decoded length counts").isFalse();
        assertThat(parser.parse("\"" + "k".repeat(255) + "\"").valid()).isTrue();
    }

    @Test
    void twoHeaderValuesAreRefused() {
        assertThat(parser.parse(List.of("a", "b")).error()).contains("2 Idempotency-Key headers");
        assertThat(parser.parse(List.of("a")).key()).isEqualTo("a");
    }
}
