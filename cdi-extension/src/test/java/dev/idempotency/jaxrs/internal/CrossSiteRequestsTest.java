package dev.idempotency.jaxrs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import jakarta.ws.rs.core.HttpHeaders;

import org.junit.jupiter.api.Test;

import dev.idempotency.config.WebOrigin;

class CrossSiteRequestsTest {

    private static final Set<String> NONE = Set.of();

    @Test
    void fetchMetadataDecidesWhereBrowsersSendIt() {
        assertThat(fromAnotherSite(NONE, "Host", "shop.example", "Sec-Fetch-Site", "cross-site")).isTrue();
        assertThat(fromAnotherSite(NONE, "Host", "shop.example", "Sec-Fetch-Site", "Cross-Site",
                "Origin", "https://shop.example")).as("the Origin alone may be forged by no page, the metadata wins").isTrue();
        assertThat(fromAnotherSite(NONE, "Host", "shop.example", "Sec-Fetch-Site", "same-origin")).isFalse();
        assertThat(fromAnotherSite(NONE, "Host", "api.shop.example", "Sec-Fetch-Site", "same-site",
                "Origin", "https://www.shop.example")).as("a sibling subdomain's page: another origin").isTrue();
        assertThat(fromAnotherSite(Set.of("https://www.shop.example"), "Host", "api.shop.example",
                "Sec-Fetch-Site", "same-site", "Origin", "https://www.shop.example")).as("allowed").isFalse();
        assertThat(fromAnotherSite(NONE, "Host", "api.shop.example", "Sec-Fetch-Site", "same-site")).isTrue();
        assertThat(fromAnotherSite(NONE, "Host", "shop.example", "Sec-Fetch-Site", "none")).isFalse();
        assertThat(fromAnotherSite(NONE, "Host", "shop.example", "Sec-Fetch-Site", "something-new")).isTrue();
    }

    @Test
    void withoutFetchMetadataTheOriginMustBeTheRequestsHost() {
        assertThat(fromAnotherSite(NONE, "Host", "shop.example", "Origin", "https://shop.example")).isFalse();
        assertThat(fromAnotherSite(NONE, "Host", "shop.example:443", "Origin", "https://shop.example")).isFalse();
        assertThat(fromAnotherSite(NONE, "Host", "localhost:8080", "Origin", "http://LOCALHOST:8080")).isFalse();
        assertThat(fromAnotherSite(NONE, "Host", "localhost:8080", "Origin", "http://localhost:8081")).isTrue();
        assertThat(fromAnotherSite(NONE, "Host", "shop.example", "Origin", "https://evil.example")).isTrue();
        assertThat(fromAnotherSite(NONE, "Host", "shop.example", "Origin", "null")).isTrue();
        assertThat(fromAnotherSite(NONE, "Host", "shop.example", "Origin", "https://shop.example",
                "Origin", "https://evil.example")).as("sent twice").isTrue();
        assertThat(fromAnotherSite(NONE, "Origin", "https://shop.example")).as("no Host").isTrue();
    }

    @Test
    void behindAProxyTheHostTheBrowserUsedCounts() {
        assertThat(fromAnotherSite(NONE, "Host", "app:8080", "Origin", "http://shop.example",
                "X-Forwarded-Host", "shop.example, inner.proxy")).isFalse();
        assertThat(fromAnotherSite(NONE, "Host", "app:8080", "Origin", "http://shop.example",
                "Forwarded", "for=192.0.2.1;host=\"shop.example\";proto=http, for=10.0.0.1")).isFalse();
        assertThat(fromAnotherSite(NONE, "Host", "app:8080", "Origin", "http://evil.example",
                "X-Forwarded-Host", "shop.example")).isTrue();
        assertThat(fromAnotherSite(NONE, "Host", "payments_api:8080", "Origin", "http://payments_api:8080"))
                .as("a container's service name").isFalse();
    }

    @Test
    void aPlainHttpPageOfTheSameHostCannotSpendTokensOfAnHttpsApplication() {
        // Anyone on the network path can write a plain-http page of the host (an injected script):
        // its Origin named the host, and the request passed.
        assertThat(fromAnotherSiteOver("https", NONE, "Host", "shop.example", "Origin", "http://shop.example")).isTrue();
        assertThat(fromAnotherSiteOver("https", NONE, "Host", "shop.example", "Sec-Fetch-Site", "same-site",
                "Origin", "http://shop.example")).isTrue();
        assertThat(fromAnotherSiteOver("http", NONE, "Host", "app:8080", "Origin", "http://shop.example",
                "X-Forwarded-Host", "shop.example", "X-Forwarded-Proto", "https")).as("TLS ended at a proxy").isTrue();
        assertThat(fromAnotherSiteOver("http", NONE, "Host", "app:8080", "Origin", "http://shop.example",
                "Forwarded", "host=shop.example;proto=https")).isTrue();
        assertThat(fromAnotherSiteOver("https", NONE, "Host", "shop.example", "Origin", "https://shop.example")).isFalse();
        assertThat(fromAnotherSiteOver("http", NONE, "Host", "app:8080", "Origin", "https://shop.example",
                "X-Forwarded-Host", "shop.example")).as("a proxy that does not say the scheme: the https page").isFalse();
        assertThat(fromAnotherSiteOver("http", NONE, "Host", "localhost:8080", "Origin", "http://localhost:8080")).isFalse();
        assertThat(fromAnotherSiteOver("https", NONE, "Host", "app.example", "Origin", "http://app.example",
                "X-Forwarded-Proto", "http")).as("a proxy that says the browser used http, over https to the server")
                .isFalse();
        assertThat(fromAnotherSiteOver("https", NONE, "Host", "app.example", "Origin", "http://app.example",
                "Forwarded", "proto=http;host=app.example")).isFalse();
    }

    @Test
    void aClientThatIsNoBrowserSendsNeither() {
        assertThat(fromAnotherSite(NONE, "Host", "shop.example")).isFalse();
    }

    @Test
    void anAllowedOriginIsLetThroughFromAnotherSite() {
        Set<String> allowed = Set.of(WebOrigin.normalised("https://App.Example:443/").orElseThrow());
        assertThat(fromAnotherSite(allowed, "Host", "api.other", "Sec-Fetch-Site", "cross-site",
                "Origin", "https://app.example")).isFalse();
        assertThat(fromAnotherSite(allowed, "Host", "api.other", "Origin", "https://app.example")).isFalse();
        assertThat(fromAnotherSite(allowed, "Host", "api.other", "Sec-Fetch-Site", "cross-site",
                "Origin", "http://app.example")).as("another scheme is another origin").isTrue();
    }

    @Test
    void onlyHttpAndHttpsOriginsWithoutAPathAreOrigins() {
        assertThat(WebOrigin.normalised("https://app.example:8443")).hasValue("https://app.example:8443");
        assertThat(WebOrigin.normalised("http://[::1]:80")).hasValue("http://[::1]");
        assertThat(WebOrigin.normalised("https://app.example/login")).isEmpty();
        assertThat(WebOrigin.normalised("https://user@app.example")).isEmpty();
        assertThat(WebOrigin.normalised("ftp://app.example")).isEmpty();
        assertThat(WebOrigin.normalised("app.example")).isEmpty();
        assertThat(WebOrigin.normalised("null")).isEmpty();
        assertThat(WebOrigin.normalised("http://payments_api:8080")).hasValue("http://payments_api:8080");
        assertThat(WebOrigin.normalised("http://payments_api:99999")).isEmpty();
    }

    private static boolean fromAnotherSite(Set<String> allowed, String... headers) {
        return fromAnotherSiteOver("http", allowed, headers);
    }

    private static boolean fromAnotherSiteOver(String scheme, Set<String> allowed, String... headers) {
        Map<String, List<String>> values = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 0; i < headers.length; i += 2) {
            values.computeIfAbsent(headers[i], name -> new ArrayList<>()).add(headers[i + 1]);
        }
        HttpHeaders fake = (HttpHeaders) Proxy.newProxyInstance(HttpHeaders.class.getClassLoader(),
                new Class<?>[] {HttpHeaders.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getRequestHeader" -> values.get((String) args[0]);
                    case "getHeaderString" -> values.containsKey((String) args[0])
                            ? String.join(",", values.get((String) args[0])) : null;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        return CrossSiteRequests.fromAnotherSite(fake, scheme, allowed);
    }
}
