package dev.idempotency.jaxrs.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Tag;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.exceptions.InvalidIdempotencyKeyException;
import dev.idempotency.invocation.KeyExtractor;

/**
 * Fuzzes the {@code Idempotency-Key} parser with any header value and any key length limit.
 * Checked, for every value:
 * <ul>
 *   <li>it never throws (a malformed key is a 400, never a 500), and parsing is deterministic;</li>
 *   <li>an accepted key is 1 to {@code maxLength} characters of printable US-ASCII, not only spaces, and the value
 *       (without its optional whitespace) is exactly the key's canonical form: the key itself
 *       (bare), or the key as an sf-string with only {@code "} and {@code \} escaped, which
 *       structured-field parameters ({@code ;...}) may follow;</li>
 *   <li>conversely, every such key is accepted as an sf-string, and bare unless it holds a space,
 *       {@code "}, {@code \} or a comma: a key re-parses to itself;</li>
 *   <li>a refusal has a reason that does not echo the key: it stays the same when every letter and
 *       digit of the value is replaced by another (for a value without {@code ;}: the parameters'
 *       grammar tells letters and digits apart, so there the reason is checked to be a fixed text);</li>
 *   <li>optional whitespace around the value changes nothing; two header values are refused;</li>
 *   <li>a key part of a non-HTTP method ({@link KeyExtractor}) follows the same rules: the same keys
 *       pass unchanged, the others are {@link InvalidIdempotencyKeyException}, never another exception.</li>
 * </ul>
 */
@Tag("fuzz")
class IdempotencyKeyParserFuzzTest {

    static class Payments {
        public void pay(@IdempotencyKey String key) {
        }
    }

    @FuzzTest(maxDuration = "15s")
    @DictionaryEntries({"\"", "\\\"", "\\\\", ",", " ", "\t", ";", "=", "?1", ":", "%\""})
    void acceptsExactlyTheDocumentedKeys(FuzzedDataProvider data) throws Exception {
        int maxLength = data.consumeInt(1, 300);
        String raw = data.consumeRemainingAsString();
        IdempotencyKeyParser parser = new IdempotencyKeyParser(maxLength);

        IdempotencyKeyParser.Result result = parser.parse(raw);

        assertThat(new IdempotencyKeyParser(maxLength).parse(raw)).isEqualTo(result);
        assertThat(parser.parse(" \t" + raw + "\t ")).as("optional whitespace").isEqualTo(result);
        assertThat(parser.parse(List.of(raw))).isEqualTo(result);
        assertThat(parser.parse(List.of(raw, raw)).valid()).as("two headers").isFalse();
        if (result.valid()) {
            assertThat(result.error()).isNull();
            assertThat(isKey(result.key(), maxLength)).as("an accepted key is 1 to %d printable US-ASCII characters",
                    maxLength).isTrue();
            String value = trimOws(raw);
            String quotedKey = sfString(result.key());
            assertThat(value.equals(bareForm(result.key())) || value.equals(quotedKey)
                    || value.startsWith(quotedKey + ";")).as("the value is the key's canonical form, %s", value).isTrue();
            assertThat(parser.parse(raw + ", " + raw).valid()).as("two values a proxy joined are never one key").isFalse();
        } else {
            assertThat(result.key()).isNull();
            assertThat(result.error()).isNotBlank();
            if (raw.indexOf(';') < 0) {
                IdempotencyKeyParser.Result twin = parser.parse(rotateLettersAndDigits(raw));
                assertThat(twin.valid()).isFalse();
                assertThat(twin.error()).as("the reason does not depend on the key's letters and digits")
                        .isEqualTo(result.error());
            } else if (result.error().contains("parameters")) {
                assertThat(result.error()).isEqualTo(new IdempotencyKeyParser(1).parse("\"k\";;").error());
            }
        }

        // The same string as a key: accepted in its canonical forms exactly when it is a valid key.
        String candidate = raw;
        boolean valid = isKey(candidate, maxLength);
        IdempotencyKeyParser.Result quoted = parser.parse(sfString(candidate));
        assertThat(quoted.valid()).as("an sf-string is accepted exactly when its key is valid").isEqualTo(valid);
        if (valid) {
            assertThat(quoted.key()).isEqualTo(candidate);
            if (bareForm(candidate) != null) {
                assertThat(parser.parse(candidate).key()).isEqualTo(candidate);
            }
        }
        KeyExtractor extractor = KeyExtractor.of(Payments.class, Payments.class.getMethod("pay", String.class),
                maxLength);
        if (valid) {
            assertThat(extractor.extract(new Object[] {candidate})).isEqualTo(candidate);
        } else {
            assertThatThrownBy(() -> extractor.extract(new Object[] {candidate}))
                    .isExactlyInstanceOf(InvalidIdempotencyKeyException.class);
        }
    }

    /** The documented alphabet and length, independent of the parser. */
    private static boolean isKey(String key, int maxLength) {
        return !key.isBlank() && key.length() <= maxLength && key.chars().allMatch(c -> c >= 0x20 && c <= 0x7E);
    }

    /** @return the key itself when it may be sent bare, else {@code null} */
    private static String bareForm(String key) {
        return key.chars().anyMatch(c -> c == ' ' || c == '"' || c == '\\' || c == ',') ? null : key;
    }

    private static String sfString(String key) {
        return '"' + key.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    private static String trimOws(String raw) {
        return raw.replaceAll("^[ \t]+|[ \t]+$", "");
    }

    /** a to b, z to a, 0 to 1, 9 to 0: the same shape, other content. */
    private static String rotateLettersAndDigits(String raw) {
        StringBuilder rotated = new StringBuilder(raw.length());
        raw.chars().forEach(c -> rotated.append((char) (c >= 'a' && c <= 'z' ? 'a' + (c - 'a' + 1) % 26
                : c >= 'A' && c <= 'Z' ? 'A' + (c - 'A' + 1) % 26
                : c >= '0' && c <= '9' ? '0' + (c - '0' + 1) % 10
                : c)));
        return rotated.toString();
    }
}
