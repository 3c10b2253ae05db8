package dev.idempotency.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} process of the test's own: loopback only, nothing on disk, protected
 * mode on, the default user behind {@link #ADMIN_PASSWORD} and an ACL user {@link #USER} for the
 * store with only the commands and keys it needs. Stopped by its PID.
 */
public final class RedisServer implements AutoCloseable {

    public static final String ADMIN_PASSWORD = "admin-secret";
    public static final String USER = "idem";
    public static final String PASSWORD = "idem-secret";
    /** What the store's user may do: its scripts (and what they call), WAIT, and what Lettuce asks on connecting. */
    public static final List<String> USER_ACL = List.of("on", ">" + PASSWORD, "~idem:*", "resetchannels", "-@all",
            "+evalsha", "+eval", "+script|load", "+get", "+set", "+del", "+time", "+pttl", "+wait", "+ping", "+hello",
            "+auth", "+client|setname", "+select", "+cluster|nodes", "+cluster|slots",
            "+cluster|myid", "+cluster|shards", "+info", "+readonly");

    private static final Path SERVER = Path.of(System.getProperty("redis.server", "/usr/bin/redis-server"));
    private static final Path CLI = Path.of(System.getProperty("redis.cli", "/usr/bin/redis-cli"));
    private static final Path WORK = Path.of(System.getProperty("redis.work", "target/redis"));
    private static final Set<ProcessHandle> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(ProcessHandle::destroyForcibly)));
    }

    public final String name;
    public final int port;
    public final Path dir;
    private final List<String> extra;
    /** The CA that signed a TLS server's certificate, which redis-cli trusts; null for plain TCP. */
    private final Path tlsAuthority;
    private Process process;

    private RedisServer(String name, int port, List<String> extra, Path tlsAuthority) {
        this.name = name;
        this.port = port;
        this.dir = WORK.resolve(name).toAbsolutePath();
        this.extra = extra;
        this.tlsAuthority = tlsAuthority;
    }

    /**
     * @param name the folder under target/redis
     * @param port a loopback port of 7300-7399
     * @param extra more {@code --option value} arguments
     * @return the started server, answering PING
     */
    public static RedisServer start(String name, int port, String... extra) throws Exception {
        return start(new RedisServer(name, port, List.of(extra), null));
    }

    /**
     * A server that speaks TLS only, on the port (no plain TCP port).
     *
     * @param name the folder under target/redis
     * @param port a loopback port of 7300-7399
     * @param certificates the test certificates
     * @param certificate which server certificate it serves ({@link TestCertificates#serverOptions})
     * @return the started server, answering PING over TLS
     */
    public static RedisServer startTls(String name, int port, TestCertificates certificates, String certificate)
            throws Exception {
        List<String> options = new ArrayList<>(certificates.serverOptions(certificate));
        options.addAll(List.of("--tls-port", String.valueOf(port)));
        return start(new RedisServer(name, port, options, certificates.authority()));
    }

    private static RedisServer start(RedisServer server) throws Exception {
        // a new server starts empty: what an earlier run left (a replica's synced dump.rdb, an
        // append-only file) would be loaded
        Files.deleteIfExists(server.dir.resolve("dump.rdb"));
        Path appendOnly = server.dir.resolve("appendonlydir");
        if (Files.isDirectory(appendOnly)) {
            try (var files = Files.list(appendOnly)) {
                for (Path file : files.toList()) {
                    Files.delete(file);
                }
            }
            Files.delete(appendOnly);
        }
        server.start();
        return server;
    }

    /** Starts the (stopped) server on its port and folder, a cluster node as a new node (its nodes.conf deleted). */
    public void start() throws Exception {
        start(false);
    }

    /**
     * Starts a stopped or killed cluster node again with its nodes.conf: it rejoins the cluster it
     * knew (a master whose replica was promoted meanwhile comes back as that one's replica).
     */
    public void rejoin() throws Exception {
        start(true);
    }

    private void start(boolean keepClusterState) throws Exception {
        if (listening(port)) {
            throw new IllegalStateException("port " + port + " is taken: a redis-server of an earlier run left behind?");
        }
        Files.createDirectories(dir);
        if (!keepClusterState) {
            Files.deleteIfExists(dir.resolve("nodes.conf"));
        }
        List<String> command = new ArrayList<>(List.of(SERVER.toString(), "--port",
                tlsAuthority == null ? String.valueOf(port) : "0",
                "--bind", "127.0.0.1", "--protected-mode", "yes", "--save", "", "--appendonly", "no",
                "--dir", dir.toString(), "--logfile", dir.resolve("redis.log").toString(),
                "--requirepass", ADMIN_PASSWORD, "--masterauth", ADMIN_PASSWORD, "--user", USER));
        command.addAll(USER_ACL);
        command.addAll(extra);
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("stdout.log").toFile()).start();
        RUNNING.add(process.toHandle());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!"PONG".equals(cliQuietly("PING"))) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("redis-server " + name + " did not start: "
                        + Files.readString(dir.resolve("redis.log")));
            }
            Thread.sleep(50);
        }
    }

    /** @return the server's PID */
    public long pid() {
        return process.pid();
    }

    /** Stops the server (SIGTERM to its PID, then SIGKILL if it lingers). */
    public void stop() throws InterruptedException {
        if (process == null) {
            return;
        }
        ProcessHandle handle = process.toHandle();
        handle.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            handle.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
        RUNNING.remove(handle);
        process = null;
    }

    /**
     * Kills the server at once (SIGKILL to its PID), as a crash would: what it had not written to
     * its append-only file is gone. {@link #start()} starts it again on its folder.
     */
    public void kill() throws InterruptedException {
        if (process == null) {
            return;
        }
        ProcessHandle handle = process.toHandle();
        handle.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        RUNNING.remove(handle);
        process = null;
    }

    /** Freezes (SIGSTOP) or thaws (SIGCONT) the process by its PID: a server that stops answering. */
    public void signal(String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + pid() + " failed");
        }
    }

    @Override
    public void close() {
        try {
            stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return the URI the store uses */
    public String uri() {
        return (tlsAuthority == null ? "redis://" : "rediss://") + "127.0.0.1:" + port;
    }

    /** @return settings for the store's ACL user on this server, with more settings */
    public Map<String, String> settings(String... more) {
        Map<String, String> settings = new java.util.HashMap<>(Map.of("idempotency.redis.uri", uri(),
                "idempotency.redis.user", USER, "idempotency.redis.password", PASSWORD));
        for (int i = 0; i < more.length; i += 2) {
            settings.put(more[i], more[i + 1]);
        }
        return settings;
    }

    /**
     * Runs redis-cli as the admin (the default user).
     *
     * @return its output, trimmed
     */
    public String cli(String... args) {
        List<String> options = new ArrayList<>(List.of("--no-auth-warning", "-a", ADMIN_PASSWORD));
        if (tlsAuthority != null) {
            options.addAll(List.of("--tls", "--cacert", tlsAuthority.toString()));
        }
        options.addAll(List.of(args));
        return cli(port, options);
    }

    /**
     * Runs redis-cli against a server on this host.
     *
     * @param port its port
     * @param args the options and the command
     * @return its output, trimmed
     */
    static String cli(int port, List<String> args) {
        try {
            List<String> command = new ArrayList<>(List.of(CLI.toString(), "-h", "127.0.0.1", "-p", String.valueOf(port)));
            command.addAll(args);
            Process cli = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!cli.waitFor(30, TimeUnit.SECONDS)) {
                cli.destroyForcibly();
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private String cliQuietly(String... args) {
        return Optional.of(cli(args)).orElse("");
    }

    public static boolean listening(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Waits until a condition on the server holds. */
    public void await(String what, Duration limit, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(name + ": " + what + " did not happen within " + limit);
            }
            Thread.sleep(50);
        }
    }
}
