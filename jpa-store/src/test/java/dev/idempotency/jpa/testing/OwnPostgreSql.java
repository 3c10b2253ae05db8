package dev.idempotency.jpa.testing;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.idempotency.testing.ChildProcess;

/**
 * A PostgreSQL server of the test's own, as a child process ({@link ChildProcess}): on 127.0.0.1
 * only (no Unix socket), on a data directory and a port of its own, so that a test can stop it
 * ({@link #stop()}, a database outage) or kill it ({@link #kill()}, a crash) and start it again
 * ({@link #restart()}) on the same data and the same port, without touching the machine's shared
 * PostgreSQL. User {@value #USER}, no password (trust), database {@value #DATABASE}.
 *
 * <p>PostgreSQL refuses to run as root: when the build runs as root, {@code initdb} and
 * {@code postgres} run as the OS user {@value #USER} ({@code setpriv}, which execs, so that the
 * server is this JVM's own child; {@code runuser} where there is no {@code setpriv}), on a data
 * directory that user owns. Either way, stop and kill address the postmaster by the PID it
 * wrote into {@code postmaster.pid}, and its child processes by theirs; a JVM shutdown hook kills
 * them should the JVM end before {@link #close()}.
 *
 * <pre>{@code
 * try (OwnPostgreSql db = OwnPostgreSql.start(Path.of("target", "pg", "data"))) {
 *     // ... use db.jdbcUrl(), user "postgres", password ""
 *     db.stop();      // outage: connections are refused
 *     db.restart();   // back on the same port, with the same data
 *     db.kill();      // crash (SIGKILL)
 *     db.restart();   // crash recovery
 * }
 * }</pre>
 *
 * The binaries are found in {@code -Dpostgresql.bin=DIR}, else on the PATH, else in the newest
 * {@code /usr/lib/postgresql/<version>/bin}.
 */
public final class OwnPostgreSql implements AutoCloseable {

    /** The database superuser, also the OS user the server runs as when the build runs as root. */
    public static final String USER = "postgres";
    /** The database {@link #jdbcUrl()} names, created on the first start. */
    public static final String DATABASE = "test";

    private static final Duration INITDB_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration KILL_TIMEOUT = Duration.ofSeconds(20);
    private static final int LOG_TAIL_LINES = 40;

    private final Path dataDir;
    private final int port;
    private final Path bin;
    private final List<String> asPostgres;
    private final Thread backstop;
    private ChildProcess process;
    private Path log;
    private volatile ProcessHandle postmaster;

    private OwnPostgreSql(Path dataDir, int port, Path bin, List<String> asPostgres) {
        this.dataDir = dataDir;
        this.port = port;
        this.bin = bin;
        this.asPostgres = asPostgres;
        this.backstop = new Thread(this::killTree, "own-postgresql-backstop");
        Runtime.getRuntime().addShutdownHook(backstop);
    }

    /**
     * Starts a server on a free loopback port; {@code initdb} first when the directory is empty
     * or missing. Creates database {@value #DATABASE} if it is missing.
     *
     * @param dataDir the data directory: empty, missing, or one this class initialised before
     * @return the running server, accepting connections
     * @throws IOException when it cannot be set up
     * @throws InterruptedException when interrupted while waiting
     * @throws AssertionError when initdb fails or the server is not ready within 60 s (with the log's tail)
     */
    public static OwnPostgreSql start(Path dataDir) throws IOException, InterruptedException {
        AssertionError portTaken = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                return start(dataDir, ChildProcess.freePort());
            } catch (PortTaken e) {
                // someone took the free port between the look-up and the bind: another one
                portTaken = e;
            }
        }
        throw portTaken;
    }

    /**
     * Starts a server on a given loopback port (to bring one back where its clients expect it).
     *
     * @param dataDir the data directory: empty, missing, or one this class initialised before
     * @param port the TCP port on 127.0.0.1
     * @return the running server, accepting connections
     * @throws IOException when it cannot be set up
     * @throws InterruptedException when interrupted while waiting
     * @throws AssertionError when initdb fails or the server is not ready within 60 s (with the log's tail)
     */
    public static OwnPostgreSql start(Path dataDir, int port) throws IOException, InterruptedException {
        Path dir = dataDir.toAbsolutePath().normalize();
        Path bin = binaries();
        List<String> asPostgres = asPostgresUser();
        initialise(dir, bin, asPostgres);
        OwnPostgreSql server = new OwnPostgreSql(dir, port, bin, asPostgres);
        try {
            server.launch();
            server.createDatabase();
        } catch (Exception | Error e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** @return its TCP port on 127.0.0.1, the same across restarts */
    public int port() {
        return port;
    }

    /** @return the JDBC URL of database {@value #DATABASE} (user {@value #USER}, empty password) */
    public String jdbcUrl() {
        return jdbcUrl(DATABASE);
    }

    /**
     * @param database a database name
     * @return its JDBC URL on this server
     */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    /** @return the user to connect as, {@value #USER} (no password) */
    public String user() {
        return USER;
    }

    /** @return its data directory (absolute) */
    public Path dataDir() {
        return dataDir;
    }

    /** @return the log of its current (or last) run, next to the data directory */
    public Path log() {
        return log;
    }

    /** @return whether it was started and not stopped or killed since */
    public boolean running() {
        return process != null;
    }

    /** @return the postmaster's PID, or -1 while stopped */
    public long pid() {
        ProcessHandle current = postmaster;
        return current == null ? -1 : current.pid();
    }

    /**
     * Opens a connection to database {@value #DATABASE}, with bounded connect (5 s) and login
     * (10 s) timeouts: a stopped server refuses it at once.
     *
     * @return a new connection, the caller's to close
     * @throws SQLException when it cannot be opened
     */
    public Connection connect() throws SQLException {
        return connect(DATABASE);
    }

    private Connection connect(String database) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", USER);
        properties.setProperty("password", "");
        properties.setProperty("connectTimeout", "5");
        properties.setProperty("loginTimeout", "10");
        properties.setProperty("socketTimeout", "60");
        return DriverManager.getConnection(jdbcUrl(database), properties);
    }

    /**
     * Stops it with a fast shutdown (SIGINT to the postmaster: open transactions are rolled back,
     * clients disconnected, a checkpoint written), and waits until its processes have ended;
     * kills them when that takes longer than 30 s. Does nothing while stopped.
     *
     * @throws IOException when the signal cannot be sent
     * @throws InterruptedException when interrupted while waiting
     * @throws AssertionError when it had to be killed after all
     */
    public void stop() throws IOException, InterruptedException {
        if (process == null) {
            return;
        }
        List<ProcessHandle> tree = tree(postmaster);
        signal("INT", postmaster);
        if (awaitGone(tree, STOP_TIMEOUT)) {
            finish();
            return;
        }
        signal("QUIT", postmaster);
        if (!awaitGone(tree, Duration.ofSeconds(5))) {
            tree.forEach(ProcessHandle::destroyForcibly);
            awaitGone(tree, KILL_TIMEOUT);
        }
        finish();
        throw new AssertionError("PostgreSQL (PID " + tree.get(0).pid() + ") did not stop within " + STOP_TIMEOUT
                + " of a fast shutdown and was killed" + tail(log));
    }

    /**
     * Kills it at once, as a crash would: SIGKILL to the postmaster, then to each of its
     * processes; waits until they have ended. The next start recovers from the WAL. Does nothing
     * while stopped.
     *
     * @throws InterruptedException when interrupted while waiting
     */
    public void kill() throws InterruptedException {
        if (process == null) {
            return;
        }
        List<ProcessHandle> tree = tree(postmaster);
        tree.forEach(ProcessHandle::destroyForcibly);
        if (!awaitGone(tree, KILL_TIMEOUT)) {
            throw new AssertionError("PostgreSQL's processes " + tree.stream().filter(OwnPostgreSql::alive).toList()
                    + " survived SIGKILL for " + KILL_TIMEOUT);
        }
        finish();
    }

    /**
     * Freezes the whole server (SIGSTOP to the postmaster and each of its processes, the backends
     * serving open connections among them): a database that stops answering without closing a
     * connection, as a host stalled on its disk would. {@link #thaw()} lets it go on.
     *
     * @throws IOException when a signal cannot be sent
     * @throws InterruptedException when interrupted
     */
    public void freeze() throws IOException, InterruptedException {
        for (ProcessHandle process : tree(postmaster)) {
            signal("STOP", process);
        }
    }

    /**
     * Thaws what {@link #freeze()} froze (SIGCONT to each process), the backends started since
     * among them.
     *
     * @throws IOException when a signal cannot be sent
     * @throws InterruptedException when interrupted
     */
    public void thaw() throws IOException, InterruptedException {
        for (ProcessHandle process : tree(postmaster)) {
            signal("CONT", process);
        }
    }

    /**
     * Starts it again on the same data directory and the same port (stopping it first if it
     * runs), and waits until it accepts connections: after a kill, once it has recovered.
     *
     * @throws IOException when it cannot be started
     * @throws InterruptedException when interrupted while waiting
     * @throws AssertionError when it is not ready within 60 s (with the log's tail)
     */
    public void restart() throws IOException, InterruptedException {
        stop();
        launch();
    }

    /** Stops it if it runs (killing it if that fails); leaves no process behind. */
    @Override
    public void close() throws IOException, InterruptedException {
        try {
            stop();
        } finally {
            try {
                kill();
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(backstop);
                } catch (IllegalStateException shuttingDown) {
                    // the hook runs anyway
                }
            }
        }
    }

    private void launch() throws IOException, InterruptedException {
        log = nextLog();
        List<String> command = new ArrayList<>(asPostgres);
        command.addAll(List.of(bin.resolve("postgres").toString(), "-D", dataDir.toString(), "-p", String.valueOf(port),
                "-c", "listen_addresses=127.0.0.1",
                "-c", "unix_socket_directories=",
                "-c", "fsync=off",
                "-c", "shared_buffers=32MB",
                "-c", "max_connections=50"));
        process = ChildProcess.start(command, log);
        try {
            postmaster = awaitReady();
        } catch (Exception | Error e) {
            List<ProcessHandle> tree = tree(postmaster().orElse(null));
            tree.forEach(ProcessHandle::destroyForcibly);
            awaitGone(tree, KILL_TIMEOUT);
            finish();
            throw e;
        }
    }

    private ProcessHandle awaitReady() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            try {
                process.assertAlive();
            } catch (AssertionError exited) {
                String text = Files.readString(log, StandardCharsets.UTF_8);
                String message = "PostgreSQL exited before accepting connections on 127.0.0.1:" + port
                        + " (data " + dataDir + "): " + exited.getMessage() + tail(log);
                if (text.contains("could not bind") || text.contains("could not create any TCP/IP sockets")) {
                    throw new PortTaken("port " + port + " on 127.0.0.1 is taken: " + message);
                }
                throw new AssertionError(message);
            }
            try (Connection connection = connect("postgres");
                    Statement statement = connection.createStatement();
                    ResultSet result = statement.executeQuery("SELECT current_setting('data_directory')")) {
                result.next();
                if (!Path.of(result.getString(1)).equals(dataDir)) {
                    throw new AssertionError("port " + port + " on 127.0.0.1 is another server's (data "
                            + result.getString(1) + "), not that of " + dataDir + tail(log));
                }
                return postmaster().orElseThrow(() -> new AssertionError("PostgreSQL accepts connections but "
                        + dataDir.resolve("postmaster.pid") + " names no live postmaster of this data directory" + tail(log)));
            } catch (SQLException notYet) {
                // not listening yet, or still starting up (recovering)
                last = notYet;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("PostgreSQL did not accept connections on 127.0.0.1:" + port + " within "
                + READY_TIMEOUT + (last == null ? "" : " (last: " + last.getMessage() + ")") + tail(log));
    }

    private void createDatabase() throws IOException {
        try (Connection connection = connect("postgres"); Statement statement = connection.createStatement()) {
            boolean exists;
            try (ResultSet result = statement.executeQuery(
                    "SELECT 1 FROM pg_database WHERE datname = '" + DATABASE + "'")) {
                exists = result.next();
            }
            if (!exists) {
                statement.execute("CREATE DATABASE " + DATABASE);
            }
        } catch (SQLException e) {
            throw new IOException("cannot create database " + DATABASE + " on 127.0.0.1:" + port, e);
        }
    }

    /**
     * @return the postmaster by the PID it wrote (first line of postmaster.pid), when that process
     *     lives and is the postmaster of this data directory (not a stale file's PID, reused since)
     */
    private Optional<ProcessHandle> postmaster() {
        try {
            List<String> lines = Files.readAllLines(dataDir.resolve("postmaster.pid"));
            if (lines.isEmpty()) {
                return Optional.empty();
            }
            return ProcessHandle.of(Long.parseLong(lines.get(0).trim()))
                    .filter(handle -> handle.info().arguments().map(List::of).orElse(List.of()).contains(dataDir.toString()));
        } catch (IOException | NumberFormatException | UnsupportedOperationException missing) {
            return Optional.empty();
        }
    }

    /** The postmaster first, then its processes, as they are now (their handles: a PID reused later is not theirs). */
    private static List<ProcessHandle> tree(ProcessHandle postmaster) {
        List<ProcessHandle> tree = new ArrayList<>();
        if (postmaster != null && postmaster.isAlive()) {
            tree.add(postmaster);
            postmaster.descendants().forEach(tree::add);
        }
        return tree;
    }

    private static boolean awaitGone(List<ProcessHandle> processes, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (processes.stream().anyMatch(OwnPostgreSql::alive)) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

    /**
     * @param process a process
     * @return whether it runs: a zombie does not (a killed server's orphans are zombies until
     *     init reaps them, which may take a while or, with some container inits, never happen)
     */
    static boolean alive(ProcessHandle process) {
        if (!process.isAlive()) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(process.pid()), "stat"));
            String afterName = stat.substring(stat.lastIndexOf(')') + 1).trim();
            return !afterName.startsWith("Z") && !afterName.startsWith("X");
        } catch (IOException | RuntimeException gone) {
            return process.isAlive();
        }
    }

    /** Reaps the launcher process and forgets the postmaster. */
    private void finish() throws InterruptedException {
        postmaster = null;
        if (process != null) {
            ChildProcess launcher = process;
            process = null;
            launcher.close();
        }
    }

    /** The shutdown hook: SIGKILL to whatever still runs. */
    private void killTree() {
        tree(postmaster).forEach(ProcessHandle::destroyForcibly);
    }

    private static void signal(String signal, ProcessHandle process) throws IOException, InterruptedException {
        if (process == null || !process.isAlive()) {
            return;
        }
        long pid = process.pid();
        Process kill = new ProcessBuilder("kill", "-s", signal, String.valueOf(pid))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS)) {
            kill.destroyForcibly();
            throw new IOException("kill -s " + signal + " " + pid + " did not return within 10 s");
        }
    }

    /** Runs initdb when the directory is empty or missing; refuses a directory that is neither empty nor a cluster. */
    private static void initialise(Path dir, Path bin, List<String> asPostgres) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        boolean empty;
        try (Stream<Path> entries = Files.list(dir)) {
            empty = entries.findAny().isEmpty();
        }
        if (!empty) {
            if (!Files.exists(dir.resolve("PG_VERSION"))) {
                throw new IllegalArgumentException(dir + " is neither empty nor a PostgreSQL data directory");
            }
            return;
        }
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        if (!asPostgres.isEmpty()) {
            UserPrincipal postgres = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(USER);
            Files.setOwner(dir, postgres);
            List<String> probe = new ArrayList<>(asPostgres);
            probe.addAll(List.of("test", "-w", dir.toString(), "-a", "-x", dir.toString()));
            if (run(probe, Duration.ofSeconds(10), null) != 0) {
                throw new IllegalStateException("the OS user " + USER + " cannot reach " + dir
                        + " (is a folder on its path closed to other users?): put the data directory where it can, e.g. under "
                        + System.getProperty("java.io.tmpdir"));
            }
        }
        Path log = dir.resolveSibling(dir.getFileName() + "-initdb.log");
        List<String> command = new ArrayList<>(asPostgres);
        command.addAll(List.of(bin.resolve("initdb").toString(), "-D", dir.toString(), "-U", USER, "--auth=trust",
                "-E", "UTF8", "--locale=C", "--no-sync"));
        int exit = run(command, INITDB_TIMEOUT, log);
        if (exit != 0) {
            throw new AssertionError("initdb " + dir + " failed" + (exit < 0 ? " to finish within " + INITDB_TIMEOUT
                    : " with exit code " + exit) + tail(log));
        }
    }

    /** @return the exit code, or -1 when it did not end in time (it is then killed) */
    private static int run(List<String> command, Duration timeout, Path log) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.redirectOutput(log == null ? ProcessBuilder.Redirect.DISCARD : ProcessBuilder.Redirect.to(log.toFile()));
        Process process = builder.start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            return -1;
        }
        return process.exitValue();
    }

    /** A log of its own for each run (a redirect truncates), next to the data directory. */
    private Path nextLog() {
        for (int run = 1;; run++) {
            Path candidate = dataDir.resolveSibling(dataDir.getFileName() + "-postgresql-" + run + ".log");
            if (!Files.exists(candidate)) {
                return candidate;
            }
        }
    }

    /** @return the command prefix that runs a program as the OS user postgres: none unless root */
    private static List<String> asPostgresUser() throws IOException {
        if (!root()) {
            return List.of();
        }
        try {
            Path.of("/").getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(USER);
        } catch (IOException e) {
            throw new IllegalStateException("PostgreSQL refuses to run as root, and there is no OS user " + USER
                    + " to run it as (create one: useradd --system " + USER + ")", e);
        }
        String tool = System.getProperty("ownpostgresql.switch-user", onPath("setpriv") ? "setpriv" : "runuser");
        if (tool.equals("setpriv")) {
            // execs: the postmaster is this JVM's own child
            return List.of("setpriv", "--reuid=" + USER, "--regid=" + USER, "--init-groups", "--");
        }
        // forks: the postmaster is runuser's child, reached by its PID only
        return List.of("runuser", "-u", USER, "--");
    }

    private static boolean root() {
        try {
            return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    private static boolean onPath(String program) {
        return Stream.of(System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator))
                .filter(entry -> !entry.isEmpty())
                .anyMatch(entry -> Files.isExecutable(Path.of(entry, program)));
    }

    private static Path binaries() {
        String configured = System.getProperty("postgresql.bin");
        if (configured != null) {
            return Path.of(configured);
        }
        for (String entry : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!entry.isEmpty() && Files.isExecutable(Path.of(entry, "initdb"))
                    && Files.isExecutable(Path.of(entry, "postgres"))) {
                return Path.of(entry);
            }
        }
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            return versions.map(version -> version.resolve("bin"))
                    .filter(candidate -> Files.isExecutable(candidate.resolve("initdb")))
                    .max(Comparator.comparingInt(OwnPostgreSql::version))
                    .orElseThrow();
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("no PostgreSQL binaries (initdb, postgres) on the PATH or under "
                    + "/usr/lib/postgresql/*/bin: install PostgreSQL or set -Dpostgresql.bin=DIR");
        }
    }

    private static int version(Path bin) {
        try {
            return Integer.parseInt(bin.getParent().getFileName().toString().replaceAll("\\D.*", ""));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static String tail(Path log) {
        if (log == null || !Files.exists(log)) {
            return "";
        }
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return "; the last lines of " + log + ":\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        } catch (IOException | RuntimeException e) {
            return "; see " + log;
        }
    }

    /** The server exited because its port was taken. */
    private static final class PortTaken extends AssertionError {
        private static final long serialVersionUID = 1L;

        PortTaken(String message) {
            super(message);
        }
    }
}
