package dev.idempotency.jaxrs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedHashMap;
import jakarta.ws.rs.core.MultivaluedMap;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Tag;

import dev.idempotency.spi.StoredOutcome;

/**
 * Fuzzes which response headers are stored for replay ({@link ReplayableHeaders}), with any
 * allow-list (even one naming forbidden headers, which configuration refuses) and any headers,
 * in any letter case, with any values. Checked:
 * <ul>
 *   <li>credentials, cookies, proxy and hop-by-hop headers and {@code Content-Length} (the README's
 *       list, kept here independently of the library's) never survive, whatever their case;</li>
 *   <li>every other header on the allow-list survives with exactly its values, in order, under its
 *       name as sent; nothing else survives, in the original order;</li>
 *   <li>{@code Content-Type} is the response's media type, never a header copied from the map;</li>
 *   <li>the selection survives a {@link StoredOutcome} unchanged.</li>
 * </ul>
 */
@Tag("fuzz")
class ReplayableHeadersFuzzTest {

    private static final Set<String> NEVER_STORED = Set.of("set-cookie", "set-cookie2", "cookie", "authorization",
            "www-authenticate", "connection", "keep-alive", "te", "trailer", "transfer-encoding", "upgrade",
            "content-length");

    /** Names worth trying: the defaults, the forbidden ones, and look-alikes. */
    private static final String[] NAMES = {"Location", "Content-Type", "ETag", "Content-Language", "Content-Location",
        "Last-Modified", "Set-Cookie", "Set-Cookie2", "Cookie", "Authorization", "WWW-Authenticate",
        "Proxy-Authenticate", "Proxy-Authorization", "Proxy-", "Connection", "Keep-Alive", "TE", "Trailer",
        "Transfer-Encoding", "Upgrade", "Content-Length", "X-Request-Id", "Link", "Set-Cookies", "Authorization2",
        "X-Set-Cookie", "Cache-Control", "Retry-After"};

    @FuzzTest(maxDuration = "15s")
    void onlyAllowedHarmlessHeadersAreStoredAndExactly(FuzzedDataProvider data) {
        Set<String> allowed = new LinkedHashSet<>();
        for (int i = data.consumeInt(0, 8); i > 0; i--) {
            allowed.add(name(data).toLowerCase(Locale.ROOT)); // configuration stores names lower case
        }
        MultivaluedMap<String, Object> headers = new MultivaluedHashMap<>();
        for (int i = data.consumeInt(0, 8); i > 0; i--) {
            List<Object> values = new ArrayList<>();
            for (int j = data.consumeInt(0, 3); j > 0; j--) {
                values.add(data.consumeString(40));
            }
            headers.put(name(data), values);
        }
        String contentType = data.consumeBoolean() ? data.consumeString(40) : null;

        Map<String, List<String>> selected = new ReplayableHeaders(Set.copyOf(allowed))
                .select(headers, mediaType(contentType));

        Map<String, List<String>> expected = new LinkedHashMap<>();
        headers.forEach((name, values) -> {
            String lower = name.toLowerCase(Locale.ROOT);
            if (allowed.contains(lower) && !neverStored(lower) && !lower.equals("content-type")) {
                expected.put(name, values.stream().map(String.class::cast).toList());
            }
        });
        if (contentType != null) {
            expected.put("Content-Type", List.of(contentType));
        }
        assertThat(selected).containsExactlyEntriesOf(expected);
        assertThat(selected.keySet()).noneMatch(name -> neverStored(name.toLowerCase(Locale.ROOT)));
        assertThat(StoredOutcome.of(200, selected, new byte[0]).headers()).containsExactlyEntriesOf(selected);
    }

    private static boolean neverStored(String lowerCaseName) {
        return NEVER_STORED.contains(lowerCaseName) || lowerCaseName.startsWith("proxy-");
    }

    /** A known name in a random letter case, or any string. */
    private static String name(FuzzedDataProvider data) {
        if (data.consumeBoolean()) {
            return data.consumeString(30);
        }
        StringBuilder name = new StringBuilder(data.pickValue(NAMES));
        for (int i = 0; i < name.length(); i++) {
            if (data.consumeBoolean()) {
                name.setCharAt(i, Character.isUpperCase(name.charAt(i)) ? Character.toLowerCase(name.charAt(i))
                        : Character.toUpperCase(name.charAt(i)));
            }
        }
        return name.toString();
    }

    /** Its text is what {@code toString()} returns; the real one needs a JAX-RS implementation. */
    private static MediaType mediaType(String text) {
        return text == null ? null : new MediaType() {
            @Override
            public String toString() {
                return text;
            }
        };
    }
}
