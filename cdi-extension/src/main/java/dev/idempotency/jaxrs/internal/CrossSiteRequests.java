package dev.idempotency.jaxrs.internal;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import jakarta.ws.rs.core.HttpHeaders;

import dev.idempotency.config.WebOrigin;

/**
 * Tells a request a page of another site made the browser send (with the caller's cookies or
 * cached credentials) from the application's own pages and from clients that are no browser.
 * Browsers mark every such request: with Fetch Metadata ({@code Sec-Fetch-Site: cross-site}),
 * else (older browsers) with an {@code Origin} other than the request's host. A request with
 * neither header comes from no browser page of another site. Origins listed in
 * {@code idempotency.tokens.allowed-origins} (a single-page application served from another site)
 * are let through.
 */
public final class CrossSiteRequests {

    /** The Fetch Metadata values of a request made by the site itself, or by the user (typed, bookmarked). */
    private static final Set<String> OWN_SITE = Set.of("same-origin", "same-site", "none");

    private CrossSiteRequests() {
    }

    /**
     * @param headers the request's headers
     * @param allowedOrigins the origins allowed across sites, each in {@link WebOrigin}'s one form
     * @return whether another site's page sent the request
     */
    public static boolean fromAnotherSite(HttpHeaders headers, Set<String> allowedOrigins) {
        List<String> origins = headers.getRequestHeader("Origin");
        Optional<String> origin = origins == null || origins.size() != 1 ? Optional.empty()
                : WebOrigin.normalised(origins.get(0));
        if (origin.isPresent() && allowedOrigins.contains(origin.get())) {
            return false;
        }
        String site = headers.getHeaderString("Sec-Fetch-Site");
        if (site != null) {
            return !OWN_SITE.contains(site.trim().toLowerCase(Locale.ROOT));
        }
        if (origins == null || origins.isEmpty()) {
            return false;
        }
        // An opaque origin ("null": a sandboxed frame, a data: page), repeated or malformed: no
        // page of this application sent it.
        String host = headers.getHeaderString(HttpHeaders.HOST);
        return origin.isEmpty() || host == null || !WebOrigin.sameAuthority(origin.get(), host);
    }
}
