package dev.idempotency.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Optional;

/**
 * A web origin as browsers send it in {@code Origin} (RFC 6454): {@code scheme://host[:port]},
 * compared in one form: lower case, the scheme's default port left out.
 */
public final class WebOrigin {

    private WebOrigin() {
    }

    /**
     * @param value an origin ({@code https://shop.example}, {@code http://localhost:8080}); a
     *     trailing {@code /} is accepted
     * @return its one form, or empty when it is no http or https origin (a path, a query, user
     *     information, the opaque {@code null})
     */
    public static Optional<String> normalised(String value) {
        URI uri;
        try {
            uri = new URI(value.trim());
        } catch (URISyntaxException e) {
            return Optional.empty();
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        int defaultPort = switch (scheme) {
            case "http" -> 80;
            case "https" -> 443;
            default -> -1;
        };
        String path = uri.getRawPath();
        if (defaultPort < 0 || uri.getRawAuthority() == null || uri.getRawUserInfo() != null || uri.getRawQuery() != null
                || uri.getRawFragment() != null || (path != null && !path.isEmpty() && !path.equals("/"))) {
            return Optional.empty();
        }
        String host = uri.getHost();
        int port = uri.getPort();
        if (host == null) {
            // a name java.net.URI takes for no host name (an underscore: a container's service name)
            String authority = uri.getRawAuthority();
            int colon = authority.lastIndexOf(':');
            host = colon < 0 ? authority : authority.substring(0, colon);
            String digits = colon < 0 ? "" : authority.substring(colon + 1);
            if (host.isEmpty() || authority.contains("@") || authority.contains("[") || !digits.matches("\\d{0,5}")) {
                return Optional.empty();
            }
            port = digits.isEmpty() ? -1 : Integer.parseInt(digits);
        }
        if (port > 65_535) {
            return Optional.empty();
        }
        return Optional.of(scheme + "://" + host.toLowerCase(Locale.ROOT) + (port < 0 || port == defaultPort ? "" : ":" + port));
    }

    /**
     * @param origin an origin in its one form
     * @param host a request's {@code Host} header
     * @return whether the request was sent to that origin's host and port
     */
    public static boolean sameAuthority(String origin, String host) {
        String scheme = origin.substring(0, origin.indexOf(':'));
        return normalised(scheme + "://" + host).filter(origin::equals).isPresent();
    }
}
