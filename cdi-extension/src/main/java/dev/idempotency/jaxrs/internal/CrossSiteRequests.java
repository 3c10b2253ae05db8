package dev.idempotency.jaxrs.internal;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import jakarta.ws.rs.core.HttpHeaders;

import dev.idempotency.config.WebOrigin;

/**
 * Tells a request a page of another origin made the browser send (with the caller's cookies or
 * cached credentials) from the application's own pages and from clients that are no browser.
 * Browsers mark such requests with Fetch Metadata ({@code Sec-Fetch-Site}, sent to https and
 * localhost origins) and with an {@code Origin} header (every cross-origin {@code POST}, whatever
 * the scheme):
 *
 * <ul>
 * <li>{@code same-origin} or {@code none} (typed, bookmarked): the application's own;</li>
 * <li>{@code cross-site}: refused;</li>
 * <li>{@code same-site} (a sibling subdomain, which cookies do not tell apart), no Fetch Metadata
 * (a plain-http site, an older browser): the {@code Origin} decides: it must be the host the
 * request was sent to ({@code Host}, or the host a proxy says the browser used:
 * {@code X-Forwarded-Host}, {@code Forwarded: host=}, headers a page cannot add to a request
 * without the application's CORS consent), and not a plain-http page's where the browser sent the
 * request over https; none at all is no browser's cross-origin request, except with
 * {@code same-site}.</li>
 * </ul>
 *
 * Origins listed in {@code idempotency.tokens.allowed-origins} (a single-page application served
 * from another host) are let through.
 */
public final class CrossSiteRequests {

    private CrossSiteRequests() {
    }

    /**
     * @param headers the request's headers
     * @param scheme the scheme the request reached the server with ({@code http} or {@code https})
     * @param allowedOrigins the origins allowed across sites, each in {@link WebOrigin}'s one form
     * @return whether a page of another origin sent the request
     */
    public static boolean fromAnotherSite(HttpHeaders headers, String scheme, Set<String> allowedOrigins) {
        List<String> origins = headers.getRequestHeader("Origin");
        boolean noOrigin = origins == null || origins.isEmpty();
        Optional<String> origin = noOrigin || origins.size() != 1 ? Optional.empty()
                : WebOrigin.normalised(origins.get(0));
        if (origin.isPresent() && allowedOrigins.contains(origin.get())) {
            return false;
        }
        String site = headers.getHeaderString("Sec-Fetch-Site");
        if (site != null) {
            switch (site.trim().toLowerCase(Locale.ROOT)) {
                case "same-origin", "none" -> {
                    return false;
                }
                case "same-site" -> {
                    // a sibling subdomain's page: only the Origin below tells it from the host's own
                }
                default -> {
                    return true;
                }
            }
        } else if (noOrigin) {
            return false;
        }
        // An opaque origin ("null": a sandboxed frame, a data: page), repeated or malformed: no
        // page of this application sent it.
        return origin.isEmpty() || !sentTo(origin.get(), headers) || downgraded(origin.get(), scheme, headers);
    }

    /**
     * @return whether a plain-http page sent a request the browser made over https (as a proxy in
     *     front says: {@code X-Forwarded-Proto}, {@code Forwarded: proto=}; else as the server saw
     *     it): anyone on the network path can write such a page. The other way (an https page, a
     *     proxy ending TLS that does not say the scheme) is the application's own page.
     */
    private static boolean downgraded(String origin, String scheme, HttpHeaders headers) {
        if (!origin.startsWith("http:")) {
            return false;
        }
        // A proxy that says which scheme the browser used decides (one that re-encrypts to the
        // server says http for a plain-http page of its own); else the request's own scheme.
        String reported = first(headers.getHeaderString("X-Forwarded-Proto"));
        if (reported == null || reported.isEmpty()) {
            reported = forwarded(headers.getHeaderString("Forwarded"), "proto");
        }
        return "https".equalsIgnoreCase(reported == null || reported.isEmpty() ? scheme : reported);
    }

    /** @return whether the request was sent to the origin's host: as it arrived, or as a proxy in front says */
    private static boolean sentTo(String origin, HttpHeaders headers) {
        return sameAuthority(origin, headers.getHeaderString(HttpHeaders.HOST))
                || sameAuthority(origin, first(headers.getHeaderString("X-Forwarded-Host")))
                || sameAuthority(origin, forwarded(headers.getHeaderString("Forwarded"), "host"));
    }

    private static boolean sameAuthority(String origin, String host) {
        return host != null && !host.isEmpty() && WebOrigin.sameAuthority(origin, host);
    }

    /** @return the first of a comma-separated list (the proxy nearest the browser) */
    private static String first(String values) {
        if (values == null) {
            return null;
        }
        int comma = values.indexOf(',');
        return (comma < 0 ? values : values.substring(0, comma)).trim();
    }

    /** @return a parameter ({@code host}, {@code proto}) of RFC 7239's first element (the first, if named twice) */
    private static String forwarded(String forwarded, String parameter) {
        List<String> values = HeaderParameters.of(first(forwarded), parameter);
        return values.isEmpty() ? null : values.get(0);
    }
}
