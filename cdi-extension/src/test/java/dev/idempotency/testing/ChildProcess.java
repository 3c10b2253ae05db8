package dev.idempotency.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A server the tests start as a process of their own (Payara Micro, Infinispan): its output in a
 * log file, stopped by its process handle (its PID) when closed, and by a shutdown hook should the
 * test JVM end first, so that none outlives the build.
 */
public final class ChildProcess implements AutoCloseable {

    private final Process process;
    private final Path log;
    private final Thread reaper;

    private ChildProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
        this.reaper = new Thread(process::destroyForcibly, "child-process-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    /**
     * @param command the command line
     * @param log where its standard output and error go
     * @return the started process
     * @throws IOException when it cannot be started
     */
    public static ChildProcess start(List<String> command, Path log) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new ChildProcess(process, log);
    }

    /** @return the {@code java} of the JVM running the tests: the servers they start run on the same Java */
    public static String javaOfThisJvm() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * @return everything it logged so far
     * @throws IOException when the log cannot be read
     */
    public String logText() throws IOException {
        return Files.readString(log);
    }

    /** @return its process id */
    public long pid() {
        return process.pid();
    }

    /**
     * Sends it a signal by its PID: {@code STOP} freezes it (a long GC pause, a hung host),
     * {@code CONT} thaws it.
     *
     * @param signal the signal's name, without {@code SIG}
     * @throws IOException when {@code kill} cannot be run
     * @throws InterruptedException when interrupted while it runs
     * @throws IllegalStateException when {@code kill} fails (the process is gone)
     */
    public void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
        }
    }

    /** @return its log file */
    public Path log() {
        return log;
    }

    /** @return whether it is still running */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** @throws AssertionError when it has exited (naming its exit code and log) */
    public void assertAlive() {
        if (!process.isAlive()) {
            throw new AssertionError("the process exited with " + process.exitValue() + "; see " + log);
        }
    }

    /**
     * Waits for a process that ends by itself (a load tool's run), and stops it if it overruns.
     *
     * @param timeout how long it may take
     * @return its exit code
     * @throws InterruptedException when interrupted while waiting
     * @throws AssertionError when it overran (it is stopped first)
     */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            close();
            throw new AssertionError("the process did not end within " + timeout + "; see " + log);
        }
        close();
        return process.exitValue();
    }

    /**
     * Kills it at once (SIGKILL), as a crash would.
     *
     * @throws InterruptedException when interrupted while waiting for it to die
     */
    public void kill() throws InterruptedException {
        process.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
    }

    /** Stops it (SIGTERM, then SIGKILL after 20 s). */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }

    /**
     * @return a port free on loopback right now
     * @throws IOException when none can be found
     */
    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /**
     * @param port a port
     * @return whether it is free on loopback right now
     */
    public static boolean free(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
