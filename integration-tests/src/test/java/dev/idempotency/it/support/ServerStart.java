package dev.idempotency.it.support;

import java.io.IOException;
import java.time.Duration;

import dev.idempotency.testing.ChildProcess;

/** The wait every {@link ServerProcess} does after starting its process: until ready, or stopped. */
final class ServerStart {

    /** What the server's log or files must show. */
    interface Readiness {
        boolean reached() throws IOException;
    }

    private ServerStart() {
    }

    /**
     * Polls until the server is ready; stops it and fails when it dies or takes longer.
     *
     * @param server the started server, closed on failure
     * @param process its process
     * @param timeout how long it may take
     * @param ready what it must reach
     * @param <S> its type
     * @return the server, ready
     * @throws Exception when it died, timed out or the wait was interrupted
     */
    static <S extends ServerProcess> S awaitReady(S server, ChildProcess process, Duration timeout, Readiness ready)
            throws Exception {
        try {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                if (ready.reached()) {
                    return server;
                }
                process.assertAlive();
                Thread.sleep(500);
            }
            throw new AssertionError(server.getClass().getSimpleName() + " was not ready within " + timeout + "; see "
                    + process.log());
        } catch (Exception | Error e) {
            server.close();
            throw e;
        }
    }
}
