package dev.idempotency.it.support;

/**
 * The server a failsafe pass runs the suites on (system property {@code it.server}, set per pass
 * in the pom): the few things the servers truly differ in, so that a test asserts the right one
 * rather than skipping.
 */
public enum ServerUnderTest {
    PAYARA(true), WILDFLY(false), LIBERTY(true);

    private final boolean microProfileMetrics;

    ServerUnderTest(boolean microProfileMetrics) {
        this.microProfileMetrics = microProfileMetrics;
    }

    /** @return the server of this pass; Payara Micro when none is named */
    public static ServerUnderTest current() {
        return valueOf(System.getProperty("it.server", "payara").toUpperCase(java.util.Locale.ROOT));
    }

    /**
     * @return whether the server has MicroProfile Metrics at {@code /metrics}; WildFly removed it
     *     (Micrometer replaces it), so the library's counter is not kept there, only the events
     */
    public boolean hasMicroProfileMetrics() {
        return microProfileMetrics;
    }
}
