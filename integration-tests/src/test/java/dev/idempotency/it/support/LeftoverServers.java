package dev.idempotency.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * After a test class failed, ends the Payara Micro processes this test JVM started that are still
 * running: Arquillian's Payara Micro adapter leaves a server whose boot timed out alive (Payara
 * Micro 7.2025.1 deadlocked once in HK2 at boot, a CI run of 2026-12-04), and that server kept its
 * ports, so the next classes' servers hung too and the whole pass failed. A passing class leaves
 * none (the adapter stops each server at its undeployment, tests close their own), so only a failed
 * one is looked at. Each is ended by its PID, after its threads are written to
 * {@code target/leftover-payara-<pid>.txt} for the diagnosis. Registered for the JUnit Platform
 * launcher ({@code META-INF/services}).
 */
public final class LeftoverServers implements TestExecutionListener {

    private static final Path DUMPS = Path.of("target");
    /** How long a server that its test or the adapter is stopping may take to exit by itself. */
    private static final int STOPPING_SECONDS = 10;

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        // Only a failed class: an aborted one (an assumption in @BeforeAll) left nothing in doubt.
        if (!test.isContainer() || result.getStatus() != TestExecutionResult.Status.FAILED) {
            return;
        }
        List<ProcessHandle> leftovers = ProcessHandle.current().descendants()
                .filter(process -> process.info().commandLine().orElse("").contains("payara-micro")).toList();
        for (ProcessHandle server : leftovers) {
            if (exitsBy(server, STOPPING_SECONDS)) {
                continue; // one being stopped by its test or the adapter
            }
            Path dump = dumpThreads(server);
            System.out.println("a Payara Micro left running after " + test.getDisplayName() + " failed: PID "
                    + server.pid() + " ended" + (dump == null ? "" : "; its threads in " + dump));
            server.destroyForcibly();
            exitsBy(server, 30);
        }
    }

    private static boolean exitsBy(ProcessHandle server, int seconds) {
        return server.onExit().orTimeout(seconds, TimeUnit.SECONDS).handle((exited, timedOut) -> timedOut == null).join();
    }

    /** @return where the server's threads were written, or {@code null} when they could not be */
    private static Path dumpThreads(ProcessHandle server) {
        Path dump = DUMPS.resolve("leftover-payara-" + server.pid() + ".txt");
        try {
            Files.createDirectories(DUMPS);
            Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    String.valueOf(server.pid()), "Thread.print").redirectErrorStream(true)
                    .redirectOutput(dump.toFile()).start();
            if (!jcmd.waitFor(30, TimeUnit.SECONDS)) {
                jcmd.destroyForcibly();
                return null;
            }
            return dump;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
