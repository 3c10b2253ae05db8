package dev.idempotency.spi;

import java.security.Principal;

/**
 * What an {@link IdempotencyScopeResolver} is told of one idempotent request or invocation: a
 * neutral view, the same for a JAX-RS request and a non-HTTP call (a CDI bean, an EJB, a message
 * consumer), naming no JAX-RS or Servlet type.
 */
public interface ScopeRequest {

    /**
     * @return the endpoint's identity, as it scopes keys and appears in events: its
     *     {@code @Idempotent(name)}, or {@code fully.qualified.Class#method(param.Types)}
     */
    String endpoint();

    /**
     * @return the authenticated caller (over HTTP the JAX-RS {@code SecurityContext}'s user
     *     principal; for a non-HTTP call the caller the library takes from the security context),
     *     or {@code null} when the caller is anonymous
     */
    Principal principal();

    /**
     * @return whether this is a JAX-RS request; {@code false} for a non-HTTP call, which has no
     *     headers and no host
     */
    boolean http();

    /**
     * @param name a header name (case-insensitive)
     * @return the header's value, or {@code null} when the request has no such header, sends it
     *     more than once (a tenant is never picked from an ambiguous request), or is no HTTP request
     */
    String header(String name);

    /**
     * @return the host the request was sent to, lower case and without the port (e.g.
     *     {@code acme.example.com}), or {@code null} for a non-HTTP call
     */
    String host();
}
