package dev.idempotency.it.consumers;

import jakarta.annotation.Priority;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;

/**
 * An application filter after authentication that calls an {@code @Idempotent} bean itself and
 * answers with its result ({@code X-Order-In-Filter: <orderNo>}): the bean's caller is the one the
 * authentication filter set, as it is for a resource method.
 */
@Provider
@ApiKeyAuthenticated
@Priority(Priorities.AUTHORIZATION)
public class OrderInFilter implements ContainerRequestFilter {

    static final String HEADER = "X-Order-In-Filter";

    @Override
    public void filter(ContainerRequestContext request) {
        String orderNo = request.getHeaderString(HEADER);
        if (orderNo != null) {
            Receipt receipt = CDI.current().select(CdiOrderConsumer.class).get().onOrder(new OrderMessage(orderNo, 1250, 0));
            request.abortWith(Response.ok(receipt, MediaType.APPLICATION_JSON_TYPE).build());
        }
    }
}
