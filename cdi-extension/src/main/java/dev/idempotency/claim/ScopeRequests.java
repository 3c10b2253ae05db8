package dev.idempotency.claim;

import java.security.Principal;

import dev.idempotency.spi.ScopeRequest;

/** The {@link ScopeRequest} of a non-HTTP invocation: an endpoint and a caller, no headers, no host. */
public final class ScopeRequests {

    private ScopeRequests() {
    }

    /**
     * @param endpoint the method's endpoint identity
     * @param principal the caller, or {@code null} when anonymous
     * @return the invocation as a resolver sees it
     */
    public static ScopeRequest withoutHttp(String endpoint, Principal principal) {
        return new Invocation(endpoint, principal);
    }

    private record Invocation(String endpoint, Principal principal) implements ScopeRequest {
        @Override
        public boolean http() {
            return false;
        }

        @Override
        public String header(String name) {
            return null;
        }

        @Override
        public String host() {
            return null;
        }
    }
}
