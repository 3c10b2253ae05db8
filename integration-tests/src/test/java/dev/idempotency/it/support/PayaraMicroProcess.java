package dev.idempotency.it.support;

import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jboss.shrinkwrap.api.Archive;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;

import dev.idempotency.testing.ChildProcess;

/**
 * A Payara Micro of a test's own, for what Arquillian's adapter cannot do (several archives, a
 * deployment that must fail). Loopback only, like every server the tests start; always stopped,
 * by its process handle (its PID), when closed.
 */
public final class PayaraMicroProcess implements ServerProcess {

    /** What Payara Micro logs when its server, not a deployment, failed to start. */
    private static final String BOOT_FAILED = "Failed to start, exiting";

    private final ChildProcess process;
    private final int port;

    private PayaraMicroProcess(ChildProcess process, int port) {
        this.process = process;
        this.port = port;
    }

    /**
     * Starts Payara Micro with the archives and waits until it reports itself ready (it also
     * does when a deployment failed).
     *
     * @param name names the work folder, the log and the cluster
     * @param archives what to deploy, in order
     * @return the running server
     * @throws Exception when it cannot be started
     */
    public static PayaraMicroProcess start(String name, Archive<?>... archives) throws Exception {
        return start(name, List.of(), archives);
    }

    /**
     * Starts Payara Micro, its JVM with extra options (a time zone, say), and waits until it is ready.
     *
     * @param name names the work folder, the log and the cluster
     * @param jvmOptions options for the server's JVM
     * @param archives what to deploy, in order
     * @return the running server
     * @throws Exception when it cannot be started
     */
    public static PayaraMicroProcess start(String name, List<String> jvmOptions, Archive<?>... archives) throws Exception {
        return start(name, jvmOptions, ChildProcess.freePort(), archives);
    }

    /**
     * Starts Payara Micro on a given HTTP port: a node started again where its clients expect it.
     *
     * @param name names the work folder, the log and the cluster
     * @param jvmOptions options for the server's JVM
     * @param port the HTTP port (loopback)
     * @param archives what to deploy, in order
     * @return the running server
     * @throws Exception when it cannot be started
     */
    public static PayaraMicroProcess start(String name, List<String> jvmOptions, int port, Archive<?>... archives)
            throws Exception {
        List<String> tuned = new ArrayList<>(startUpOptions());
        tuned.addAll(jvmOptions);
        return launch(name, tuned, port, archives);
    }

    /**
     * Starts Payara Micro on the JVM's default JIT and collector, without the tests' start-up
     * options ({@code payara.jvmOptions}): for a benchmark, which measures the server at speed.
     *
     * @param name names the work folder, the log and the cluster
     * @param jvmOptions options for the server's JVM
     * @param archives what to deploy, in order
     * @return the running server
     * @throws Exception when it cannot be started
     */
    public static PayaraMicroProcess startAtFullSpeed(String name, List<String> jvmOptions, Archive<?>... archives)
            throws Exception {
        return launch(name, jvmOptions, ChildProcess.freePort(), archives);
    }

    /** @return the JVM options every test's Payara Micro starts with (system property {@code payara.jvmOptions}) */
    private static List<String> startUpOptions() {
        String options = System.getProperty("payara.jvmOptions", "").trim();
        return options.isEmpty() ? List.of() : List.of(options.split("\\s+"));
    }

    private static PayaraMicroProcess launch(String name, List<String> jvmOptions, int port, Archive<?>... archives)
            throws Exception {
        Path work = Files.createDirectories(Path.of("target", "payara-" + name));
        // The tests' own Java, as the Arquillian adapter does: Payara Micro 7 needs the Java 25 its pass runs on.
        List<String> command = new ArrayList<>(List.of(ChildProcess.javaOfThisJvm(), "-Dhazelcast.socket.bind.any=false"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", System.getProperty("payara.microJar"),
                "--clustermode", "tcpip:127.0.0.1:6900", "--interfaces", "127.0.0.1",
                "--clustername", "idempotency-" + name, "--prebootcommandfile", System.getProperty("loopback.commands")));
        for (Archive<?> archive : archives) {
            File file = work.resolve(archive.getName()).toFile();
            archive.as(ZipExporter.class).exportTo(file, true);
            command.add("--deploy");
            command.add(file.getAbsolutePath());
        }
        command.add("--port");
        command.add(String.valueOf(port));
        Path log = work.resolve("payara.log");
        try {
            return boot(command, log, port);
        } catch (BootFailed e) {
            // Payara's own start-up services failed before any archive was deployed (seen once: a
            // ConcurrentModificationException in its JdbcServiceConfigListener), and the JVM then
            // lingers instead of exiting. Not the code under test: start it once more, keeping the log.
            Files.move(log, work.resolve("payara-boot-failed.log"), StandardCopyOption.REPLACE_EXISTING);
            System.err.println("Payara Micro " + name + " failed to boot (" + work.resolve("payara-boot-failed.log")
                    + "); starting it once more");
            return boot(command, log, port);
        }
    }

    private static PayaraMicroProcess boot(List<String> command, Path log, int port) throws Exception {
        ChildProcess process = ChildProcess.start(command, log);
        PayaraMicroProcess server = new PayaraMicroProcess(process, port);
        // 4 minutes: a fault campaign's node, started again with five applications while the
        // campaign's servers and clients load both cores, took more than 150 s once (stop 46)
        return ServerStart.awaitReady(server, process, Duration.ofSeconds(240), () -> {
            String text = server.log();
            if (text.contains(BOOT_FAILED)) {
                throw new BootFailed();
            }
            return text.contains(" ready in ");
        });
    }

    /** Payara Micro's server failed to start (a deployment that fails still ends in " ready in "). */
    private static final class BootFailed extends IOException {
        BootFailed() {
            super("Payara Micro logged '" + BOOT_FAILED + "'");
        }
    }

    @Override
    public String log() throws IOException {
        return process.logText();
    }

    @Override
    public URL url(String contextRoot) throws IOException {
        return new URL("http://localhost:" + port + "/" + contextRoot + "/");
    }

    /**
     * Kills the server at once (SIGKILL): no shutdown hook, no transaction ends cleanly.
     *
     * @throws InterruptedException when interrupted while waiting for it to die
     */
    public void kill() throws InterruptedException {
        process.kill();
    }

    /** @return its HTTP port */
    public int port() {
        return port;
    }

    /**
     * Freezes ({@code STOP}) or thaws ({@code CONT}) the server by its PID: a pause longer than a
     * lease, as a long GC pause would be.
     *
     * @param signal the signal's name, without {@code SIG}
     * @throws Exception when it cannot be sent
     */
    public void signal(String signal) throws Exception {
        process.signal(signal);
    }

    @Override
    public void close() throws InterruptedException {
        process.close();
    }
}
