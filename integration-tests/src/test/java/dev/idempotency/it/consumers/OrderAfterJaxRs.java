package dev.idempotency.it.consumers;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.inject.spi.CDI;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * A servlet filter that places an order itself once its chain returned, JAX-RS done with the
 * request's filters and resource method ({@code X-Order-After-JaxRs: <orderNo>}): for a synchronous
 * resource after its answer, for an asynchronous one before it. It keeps the receipt under the
 * request's probe ({@code X-Probe: <id>}) for {@link ConsumerHarness#afterJaxRs}, for an
 * asynchronous resource with whether its answer had been sent. The bean's caller
 * must still be the one the application's JAX-RS authentication filter set.
 */
@WebFilter(urlPatterns = {"/api/harness/api-key-order/*", "/api/harness/api-key-order-async/*"}, asyncSupported = true)
public class OrderAfterJaxRs extends HttpFilter {

    static final String HEADER = "X-Order-After-JaxRs";
    static final String PROBE = "X-Probe";

    /** The receipts by probe; a test reads each once. */
    static final Map<String, String> RECEIPTS = new ConcurrentHashMap<>();

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        chain.doFilter(request, response);
        String orderNo = request.getHeader(HEADER);
        String probe = request.getHeader(PROBE);
        if (orderNo != null && probe != null) {
            String receipt;
            boolean answered = response.isCommitted();
            try {
                receipt = CDI.current().select(CdiOrderConsumer.class).get()
                        .onOrder(new OrderMessage(orderNo, 1250, 0)).toString();
            } catch (RuntimeException e) {
                receipt = "failed: " + e;
            }
            if (request.isAsyncStarted()) {
                receipt += answered ? " (after the answer)" : " (before the answer)";
            }
            RECEIPTS.put(probe, receipt);
        }
    }
}
