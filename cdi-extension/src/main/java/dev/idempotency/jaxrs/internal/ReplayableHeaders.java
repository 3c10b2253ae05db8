package dev.idempotency.jaxrs.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.RuntimeDelegate;

import dev.idempotency.config.LibrarySettings;

/**
 * Picks the response headers worth replaying: the allow-list only. Credentials, cookies and
 * hop-by-hop headers can never be on it ({@link LibrarySettings#isForbidden}), and
 * {@code Content-Length} is recomputed on replay.
 */
final class ReplayableHeaders {

    private final Set<String> allowed;

    ReplayableHeaders(Set<String> allowedLowerCase) {
        this.allowed = allowedLowerCase;
    }

    Map<String, List<String>> select(MultivaluedMap<String, Object> headers, MediaType mediaType) {
        Map<String, List<String>> selected = new LinkedHashMap<>();
        headers.forEach((name, values) -> {
            String lower = name.toLowerCase(Locale.ROOT);
            if (allowed.contains(lower) && !LibrarySettings.isForbidden(lower) && !lower.equals("content-type")) {
                List<String> texts = new ArrayList<>(values.size());
                values.forEach(value -> texts.add(asText(value)));
                selected.put(name, texts);
            }
        });
        if (mediaType != null) {
            selected.put(HttpHeaders.CONTENT_TYPE, List.of(mediaType.toString()));
        }
        return selected;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static String asText(Object value) {
        if (value instanceof String text) {
            return text;
        }
        RuntimeDelegate.HeaderDelegate delegate = RuntimeDelegate.getInstance().createHeaderDelegate(value.getClass());
        return delegate != null ? delegate.toString(value) : String.valueOf(value);
    }
}
