package dev.idempotency.it.support;

import java.io.IOException;
import java.util.Properties;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.idempotency.infinispan.InfinispanServer;

/**
 * A real Infinispan server for the test classes that declare this extension, started before
 * Arquillian deploys (declare this extension first). One server serves every such class of a
 * test run (a server's start is some 6 s, twice that on CI): before each class it is emptied of
 * every cache and record ({@link InfinispanServer#removeCaches()}), so that the class finds it as
 * a new one; a class that left it stopped, or a server that cannot be emptied, gets a new one. It
 * is stopped, by PID, when the test JVM ends ({@link dev.idempotency.testing.ChildProcess}'s reaper).
 */
public final class InfinispanForTests implements BeforeAllCallback {

    private static InfinispanServer server;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        if (server != null && server.isRunning()) {
            try {
                server.removeCaches();
                return;
            } catch (IOException stuck) {
                // a server that cannot be emptied is not shared on: this class gets a new one
                System.err.println("the shared Infinispan server could not be emptied, starting a new one: " + stuck);
                server.close();
            }
        }
        server = InfinispanServer.single("it-shared", InfinispanServer.freeJGroupsPort());
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
