package dev.idempotency.it.support;

import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

import org.jboss.shrinkwrap.api.Archive;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;

import dev.idempotency.testing.ChildProcess;
import dev.idempotency.testing.WorkFolders;

/**
 * The Open Liberty that the liberty profile unpacked ({@code liberty.wlpHome}), started by a test
 * as a server of its own: the Arquillian pass's server.xml and JDBC driver, its own free port
 * (bootstrap.properties), the archives in its {@code dropins}. Loopback only, as that server.xml says.
 */
final class LibertyProcess implements ServerProcess {

    private final ChildProcess process;
    private final Path serverDir;
    private final int port;

    private LibertyProcess(ChildProcess process, Path serverDir, int port) {
        this.process = process;
        this.serverDir = serverDir;
        this.port = port;
    }

    static LibertyProcess start(String name, Archive<?>... archives) throws Exception {
        Path wlp = Path.of(System.getProperty("liberty.wlpHome"));
        Path template = wlp.resolve("usr/servers").resolve(System.getProperty("liberty.serverName"));
        String serverName = "it-" + name;
        Path serverDir = wlp.resolve("usr/servers").resolve(serverName);
        WorkFolders.deleteTree(serverDir);
        Files.createDirectories(serverDir.resolve("lib"));
        Files.copy(template.resolve("server.xml"), serverDir.resolve("server.xml"));
        Files.copy(template.resolve("lib/postgresql.jar"), serverDir.resolve("lib/postgresql.jar"));
        int port = ChildProcess.freePort();
        Files.writeString(serverDir.resolve("bootstrap.properties"),
                "http.port=" + port + "\nhttps.port=" + ChildProcess.freePort() + "\n");
        Path dropins = Files.createDirectories(serverDir.resolve("dropins"));
        for (Archive<?> archive : archives) {
            archive.as(ZipExporter.class).exportTo(dropins.resolve(archive.getName()).toFile(), true);
        }
        // "server run" execs the server's JVM: the process handle is the server's own PID.
        List<String> command = List.of(wlp.resolve("bin/server").toString(), "run", serverName);
        Path log = Files.createDirectories(Path.of("target", "liberty-" + name)).resolve("console.log");
        ChildProcess process = ChildProcess.start(command, log);
        LibertyProcess server = new LibertyProcess(process, serverDir, port);
        return ServerStart.awaitReady(server, process, Duration.ofSeconds(150), () -> server.started(archives));
    }

    /** @return whether each application has started (CWWKZ0001I) or failed to (CWWKZ0002E, CWWKZ0004E...) */
    private boolean started(Archive<?>[] archives) throws IOException {
        String log = log();
        boolean all = log.contains("CWWKF0011I");
        for (Archive<?> archive : archives) {
            String application = archive.getName().replaceFirst("\\.[a-z]+$", "");
            all &= log.contains("CWWKZ0001I: Application " + application + " started")
                    || log.matches("(?s).*CWWKZ000[2-9]E: [^\\n]*\\b" + Pattern.quote(application) + "\\b.*");
        }
        return all;
    }

    @Override
    public String log() throws IOException {
        Path messages = serverDir.resolve("logs/messages.log");
        return process.logText() + (Files.exists(messages) ? Files.readString(messages) : "");
    }

    @Override
    public URL url(String contextRoot) throws IOException {
        return new URL("http://localhost:" + port + "/" + contextRoot + "/");
    }

    @Override
    public void close() throws InterruptedException {
        process.close();
    }
}
