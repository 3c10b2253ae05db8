package dev.idempotency.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import dev.idempotency.spi.StoredOutcome;

/** The in-memory store's encoding gives back exactly the outcome it was given: status, headers in order, body bytes. */
class CompactOutcomeTest {

    @Test
    void anAnswerWithHeadersOfSeveralValuesComesBackEqualHeadersInOrder() {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("Location", List.of("/api/payments/7"));
        headers.put("Set-Cookie", List.of("a=1", "b=2; Path=/"));
        headers.put("X-Empty", List.of(""));
        headers.put("X-Straße", List.of("grüße, 東京"));
        StoredOutcome outcome = StoredOutcome.of(201, headers, "{\"id\":7}".getBytes(StandardCharsets.UTF_8));

        StoredOutcome back = CompactOutcome.decode(CompactOutcome.encode(outcome));

        assertThat(back).isEqualTo(outcome);
        assertThat(back.headers().keySet()).containsExactly("Location", "Set-Cookie", "X-Empty", "X-Straße");
        assertThat(back.body()).asString(StandardCharsets.UTF_8).isEqualTo("{\"id\":7}");
    }

    @Test
    void anAnswerWhoseBodyWasTooLargeToKeepStaysWithoutItAndAnEmptyBodyStaysEmpty() {
        StoredOutcome withoutBody = StoredOutcome.withoutBody(200, Map.of("Content-Type", List.of("application/pdf")));
        StoredOutcome empty = StoredOutcome.of(204, Map.of(), new byte[0]);

        assertThat(CompactOutcome.decode(CompactOutcome.encode(withoutBody))).isEqualTo(withoutBody)
                .matches(back -> !back.bodyStored());
        assertThat(CompactOutcome.decode(CompactOutcome.encode(empty))).isEqualTo(empty).matches(StoredOutcome::bodyStored);
    }

    @Test
    void randomOutcomesComeBackEqual() {
        Random random = new Random(20261204);
        for (int run = 0; run < 2_000; run++) {
            Map<String, List<String>> headers = new LinkedHashMap<>();
            for (int h = random.nextInt(6); h > 0; h--) {
                List<String> values = new ArrayList<>();
                for (int v = random.nextInt(4); v > 0; v--) {
                    values.add(text(random));
                }
                headers.put("H-" + text(random), values);
            }
            byte[] body = new byte[random.nextInt(3) == 0 ? 0 : random.nextInt(5_000)];
            random.nextBytes(body);
            StoredOutcome outcome = random.nextInt(10) == 0 ? StoredOutcome.withoutBody(100 + random.nextInt(900), headers)
                    : StoredOutcome.of(100 + random.nextInt(900), headers, body);

            assertThat(CompactOutcome.decode(CompactOutcome.encode(outcome))).as("run %d", run).isEqualTo(outcome);
        }
    }

    private static String text(Random random) {
        StringBuilder text = new StringBuilder();
        for (int c = random.nextInt(20); c > 0; c--) {
            // ASCII, Latin-1, CJK and a surrogate pair
            int kind = random.nextInt(4);
            text.append(kind == 0 ? (char) (32 + random.nextInt(95)) : kind == 1 ? (char) (0xA0 + random.nextInt(0x60))
                    : kind == 2 ? (char) (0x4E00 + random.nextInt(0x100)) : "\uD83D\uDE00");
        }
        return text.toString();
    }
}
