package dev.idempotency.it;

import java.net.URL;

import org.jboss.arquillian.test.api.ArquillianResource;
import org.junit.jupiter.api.BeforeEach;

import dev.idempotency.it.support.Http;

/** A test against a sample deployment Arquillian made: its address and a loopback HTTP client on it. */
abstract class OnSampleApp {

    static final String PAYMENTS = "api/payments";

    @ArquillianResource
    URL url;

    Http http;

    @BeforeEach
    void client() {
        http = new Http(url);
    }

    /** @return how many times the payment handler ran on this deployment */
    long executions() {
        return http.count(PAYMENTS + "/executions");
    }
}
