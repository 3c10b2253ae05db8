package dev.idempotency.it.resources;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.ext.Provider;

/**
 * An application's response filter that throws on the method's answer (an audit log that cannot
 * be reached), at the default priority: it runs before the library's response filter, so the
 * container answers with its error instead of the method's answer. Only on the answers of methods
 * marked {@link FailsAfterItsAnswer}, and only on their success: the container's error answer
 * goes through.
 */
@Provider
@FailsAfterItsAnswer
@Priority(Priorities.USER)
public class FailingResponseFilter implements ContainerResponseFilter {

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        if (response.getStatus() < 300) {
            throw new IllegalStateException("the audit log cannot be reached");
        }
    }
}
