package dev.idempotency.it.support;

import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.jboss.shrinkwrap.api.Archive;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;

import dev.idempotency.testing.ChildProcess;
import dev.idempotency.testing.WorkFolders;

/**
 * The WildFly that the wildfly profile provisioned ({@code jboss.home}), started by a test on a
 * server folder of its own (a copy of {@code standalone/configuration}, the archives in its
 * {@code deployments}), loopback only, its ports offset by 200 from the Arquillian pass's.
 */
final class WildFlyProcess implements ServerProcess {

    private static final int PORT_OFFSET = 200;
    private static final int HTTP_PORT = 8080 + PORT_OFFSET;
    private static final int MANAGEMENT_PORT = 9990 + PORT_OFFSET;
    /** What bin/standalone.sh gives the JVM on Java 17 and later. */
    private static final List<String> MODULE_OPTIONS = List.of(
            "--add-exports=java.desktop/sun.awt=ALL-UNNAMED", "--add-exports=java.naming/com.sun.jndi.ldap=ALL-UNNAMED",
            "--add-exports=java.naming/com.sun.jndi.url.ldap=ALL-UNNAMED",
            "--add-exports=java.naming/com.sun.jndi.url.ldaps=ALL-UNNAMED",
            "--add-exports=jdk.naming.dns/com.sun.jndi.dns=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.net=ALL-UNNAMED",
            "--add-opens=java.base/java.security=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.management/javax.management=ALL-UNNAMED",
            "--add-opens=java.naming/javax.naming=ALL-UNNAMED", "--add-modules=java.se");

    private final ChildProcess process;
    private final Path base;

    private WildFlyProcess(ChildProcess process, Path base) {
        this.process = process;
        this.base = base;
    }

    static WildFlyProcess start(String name, Archive<?>... archives) throws Exception {
        Path home = Path.of(System.getProperty("jboss.home"));
        Path base = Path.of("target", "wildfly-" + name).toAbsolutePath();
        WorkFolders.deleteTree(base);
        copyRecursively(home.resolve("standalone/configuration"), base.resolve("configuration"));
        // The Arquillian pass's server shares that configuration: none of its deployments come along.
        Path config = base.resolve("configuration/standalone.xml");
        Files.writeString(config, Files.readString(config).replaceAll("(?s)<deployments>.*?</deployments>", ""));
        if (!ChildProcess.free(HTTP_PORT) || !ChildProcess.free(MANAGEMENT_PORT)) {
            throw new IllegalStateException("port " + HTTP_PORT + " or " + MANAGEMENT_PORT + " is taken on loopback: "
                    + "another process would answer for the WildFly of " + name);
        }
        Path deployments = Files.createDirectories(base.resolve("deployments"));
        for (Archive<?> archive : archives) {
            archive.as(ZipExporter.class).exportTo(deployments.resolve(archive.getName()).toFile(), true);
        }
        List<String> command = new ArrayList<>(List.of(ChildProcess.javaOfThisJvm(), "-D[Standalone]", "-Xms64m", "-Xmx512m", "-Djava.net.preferIPv4Stack=true",
                "-Djboss.bind.address=127.0.0.1", "-Djboss.bind.address.management=127.0.0.1",
                "-Djboss.socket.binding.port-offset=" + PORT_OFFSET));
        command.addAll(MODULE_OPTIONS);
        command.addAll(List.of("-Djboss.home.dir=" + home, "-Djboss.server.base.dir=" + base,
                "-Dorg.jboss.boot.log.file=" + base.resolve("log/server.log"),
                "-Dlogging.configuration=file:" + base.resolve("configuration/logging.properties"),
                "-jar", home.resolve("jboss-modules.jar").toString(), "-mp", home.resolve("modules").toString(),
                "org.jboss.as.standalone"));
        ChildProcess process = ChildProcess.start(command, base.resolve("console.log"));
        WildFlyProcess server = new WildFlyProcess(process, base);
        // The deployment scanner marks each archive .deployed or .failed (with the reason).
        return ServerStart.awaitReady(server, process, Duration.ofSeconds(150), () -> Stream.of(archives)
                .map(archive -> deployments.resolve(archive.getName()))
                .allMatch(file -> Files.exists(Path.of(file + ".deployed")) || Files.exists(Path.of(file + ".failed"))));
    }

    @Override
    public String log() throws IOException {
        Path log = base.resolve("log/server.log");
        return process.logText() + (Files.exists(log) ? Files.readString(log) : "");
    }

    /**
     * The scanner's {@code .failed} marker of the archive, which holds its failure: WildFly deploys
     * the archives of its folder in one operation, so one archive's failure can take the others
     * down with it, and a sibling's message in the log would not show why this one failed.
     */
    @Override
    public String failureOf(String archiveName) throws IOException {
        Path failed = base.resolve("deployments").resolve(archiveName + ".failed");
        return Files.exists(failed) ? Files.readString(failed) : "";
    }

    @Override
    public URL url(String contextRoot) throws IOException {
        return new URL("http://localhost:" + HTTP_PORT + "/" + contextRoot + "/");
    }

    @Override
    public void close() throws InterruptedException {
        process.close();
    }

    private static void copyRecursively(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Path target = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(file, target);
                }
            }
        }
    }
}
