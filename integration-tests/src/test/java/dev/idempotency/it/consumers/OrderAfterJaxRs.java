package dev.idempotency.it.consumers;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

import jakarta.enterprise.inject.spi.CDI;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;

/**
 * A servlet filter that places an order itself once JAX-RS is done with the request ({@code
 * X-Order-After-JaxRs: <orderNo>}), and answers with its receipt instead of the resource's answer,
 * which it holds back: the bean's caller is still the one the application's JAX-RS authentication
 * filter set.
 */
@WebFilter(urlPatterns = "/api/harness/api-key-order/*")
public class OrderAfterJaxRs extends HttpFilter {

    static final String HEADER = "X-Order-After-JaxRs";

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        String orderNo = request.getHeader(HEADER);
        if (orderNo == null) {
            chain.doFilter(request, response);
            return;
        }
        chain.doFilter(request, new HeldBack(response));
        Receipt receipt = CDI.current().select(CdiOrderConsumer.class).get().onOrder(new OrderMessage(orderNo, 1250, 0));
        response.reset();
        response.setStatus(200);
        response.setContentType("text/plain;charset=UTF-8");
        response.getWriter().print(receipt);
    }

    /** The resource's answer, held back from the client. */
    private static final class HeldBack extends HttpServletResponseWrapper {
        private final ServletOutputStream discarded = new ServletOutputStream() {
            @Override
            public void write(int b) {
            }

            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setWriteListener(WriteListener listener) {
                throw new UnsupportedOperationException();
            }
        };

        HeldBack(HttpServletResponse response) {
            super(response);
        }

        @Override
        public ServletOutputStream getOutputStream() {
            return discarded;
        }

        @Override
        public PrintWriter getWriter() {
            return new PrintWriter(new OutputStreamWriter(new ByteArrayOutputStream(), StandardCharsets.UTF_8));
        }

        @Override
        public void flushBuffer() {
        }

        @Override
        public void setContentLength(int length) {
        }

        @Override
        public void setContentLengthLong(long length) {
        }
    }
}
