package dev.idempotency.it.support;

import java.io.IOException;
import java.net.URL;

import org.jboss.shrinkwrap.api.Archive;

/**
 * A server of a test's own, started as a process for what Arquillian's adapters cannot show (a
 * deployment that must fail, and the log that says why): the server of the current pass
 * ({@link ServerUnderTest}), loopback only, always stopped by its PID when closed.
 */
public interface ServerProcess extends AutoCloseable {

    /**
     * Starts the current pass's server with the archives deployed, and waits until it has
     * started them or failed to.
     *
     * @param name names the work folder and the log
     * @param archives what to deploy, in order
     * @return the running server
     * @throws Exception when it cannot be started
     */
    static ServerProcess start(String name, Archive<?>... archives) throws Exception {
        return switch (ServerUnderTest.current()) {
            case PAYARA -> PayaraMicroProcess.start(name, archives);
            case WILDFLY -> WildFlyProcess.start(name, archives);
            case LIBERTY -> LibertyProcess.start(name, archives);
        };
    }

    /** @return everything the server logged so far */
    String log() throws IOException;

    /**
     * What the server recorded of one archive's failed deployment, to tell its own failure from a
     * sibling's: by default the whole log (Payara Micro and Open Liberty deploy each archive on
     * its own, so an archive that is not deployed failed for its own reasons, which the log says).
     *
     * @param archiveName the archive's file name ({@code bad-config.war})
     * @return the text that says why it failed
     */
    default String failureOf(String archiveName) throws IOException {
        return log();
    }

    /**
     * @param contextRoot an application's context root
     * @return its base URL on loopback
     */
    URL url(String contextRoot) throws IOException;

    @Override
    void close() throws InterruptedException;
}
