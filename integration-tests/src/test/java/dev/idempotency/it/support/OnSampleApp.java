package dev.idempotency.it.support;

import java.net.URL;

import org.jboss.arquillian.test.api.ArquillianResource;
import org.junit.jupiter.api.BeforeEach;

/** A test against a sample deployment Arquillian made: its address and a loopback HTTP client on it. */
public abstract class OnSampleApp {

    protected static final String PAYMENTS = "api/payments";

    @ArquillianResource
    protected URL url;

    protected Http http;

    @BeforeEach
    protected void client() {
        http = new Http(url);
    }

    /** @return how many times the payment handler ran on this deployment */
    protected long executions() {
        return http.count(PAYMENTS + "/executions");
    }
}
