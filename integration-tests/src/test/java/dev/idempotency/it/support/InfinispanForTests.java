package dev.idempotency.it.support;

import java.util.Properties;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.idempotency.infinispan.InfinispanServer;

/**
 * A real Infinispan server for one test class, started before Arquillian deploys (declare this
 * extension first) and stopped, by PID, after the class.
 */
public final class InfinispanForTests implements BeforeAllCallback, AfterAllCallback {

    private static InfinispanServer server;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        server = InfinispanServer.single("it-" + context.getRequiredTestClass().getSimpleName(),
                InfinispanServer.freeJGroupsPort());
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    /**
     * Stops the server and starts it again on the same address, empty.
     *
     * @throws Exception when it does not start again
     */
    public static void restart() throws Exception {
        server = server.restart();
    }

    /**
     * Starts the stopped server again on the same address and its data: what a cache with a file
     * store persisted is there again.
     *
     * @throws Exception when it does not start again
     */
    public static void restartKeepingData() throws Exception {
        server = server.restartKeepingData();
    }

    /**
     * Stops the server (SIGTERM): an outage.
     *
     * @throws InterruptedException when interrupted
     */
    public static void stop() throws InterruptedException {
        server.close();
    }

    /** @return the running server */
    public static InfinispanServer server() {
        return server;
    }

    /** @return the Hot Rod client properties for the application's MicroProfile Config */
    public static Properties clientProperties() {
        return server.clientProperties();
    }
}
