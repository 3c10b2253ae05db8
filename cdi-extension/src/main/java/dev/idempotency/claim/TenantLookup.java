package dev.idempotency.claim;

import java.util.List;
import java.util.Locale;

import dev.idempotency.spi.IdempotencyScopeResolver;
import dev.idempotency.spi.ScopeRequest;

/**
 * Where the tenant of a tenant-scoped request comes from: one per application, chosen from
 * {@code idempotency.tenant.source} when the application starts, so that a request pays only the
 * look-up itself.
 */
public interface TenantLookup {

    /** No source configured: no method is tenant-scoped (the deployment refuses them otherwise). */
    TenantLookup NONE = new TenantLookup() {
        @Override
        public String tenantOf(ScopeRequest request) {
            return null;
        }

        @Override
        public boolean fromCredentials() {
            return false;
        }
    };

    /**
     * @param request the request or invocation
     * @return its tenant, or {@code null} (or {@code ""}) when it has none
     */
    String tenantOf(ScopeRequest request);

    /**
     * @return whether the tenant may come with the caller's credentials: an anonymous caller
     *     without a tenant is then told to authenticate ({@code 401}), not to send a tenant
     */
    boolean fromCredentials();

    /**
     * @param name the header carrying the tenant
     * @return the tenant from that header (a header sent twice counts as none)
     */
    static TenantLookup header(String name) {
        return new Simple(request -> request.header(name), false);
    }

    /** @return the tenant from the host the request was sent to */
    static TenantLookup host() {
        return new Simple(ScopeRequest::host, false);
    }

    /**
     * @param resolver the application's resolver (a client proxy, looked up once)
     * @return the tenant the resolver answers
     */
    static TenantLookup resolver(IdempotencyScopeResolver resolver) {
        return new Simple(resolver::resolve, true);
    }

    /**
     * @param headerValues the values of one header, as the request has them (or {@code null})
     * @return the one value, or {@code null} when there is none or more than one
     */
    static String single(List<String> headerValues) {
        return headerValues == null || headerValues.size() != 1 ? null : headerValues.get(0);
    }

    /**
     * @param host a request URI's host, without the port (or {@code null})
     * @return it in lower case (host names are case-insensitive), or {@code null} when there is none
     */
    static String hostName(String host) {
        return host == null || host.isEmpty() ? null : host.toLowerCase(Locale.ROOT);
    }

    /** A look-up that is a function of the request. */
    record Simple(IdempotencyScopeResolver function, boolean fromCredentials) implements TenantLookup {
        @Override
        public String tenantOf(ScopeRequest request) {
            return function.resolve(request);
        }
    }
}
