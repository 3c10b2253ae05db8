package dev.idempotency.infinispan;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import dev.idempotency.testing.ChildProcess;
import dev.idempotency.testing.WorkFolders;

/**
 * A real Infinispan server, as a process of its own ({@link ChildProcess}: stopped by PID, never
 * outliving the build), on loopback only, with authentication (user {@value #USER}), started
 * with a clean data folder.
 */
public final class InfinispanServer implements AutoCloseable {

    public static final String USER = "idem";
    public static final String PASSWORD = "idem-secret";
    /** A user with the ADMIN permission (reading cache configurations needs it), for checks only. */
    public static final String ADMIN = "idem-admin";
    public static final String ADMIN_PASSWORD = "idem-admin-secret";
    private static final String[] CONF = {"infinispan.xml", "log4j2.xml", "users.properties", "groups.properties"};

    private final ChildProcess process;
    private final int port;
    /** The JGroups diagnostics port of a {@link #partitionable} node, else 0. */
    private final int diagnosticsPort;
    /** Caches defined in the server's configuration (an overlay file), or null. */
    private final String definedCaches;
    private final String[] identity;

    private InfinispanServer(ChildProcess process, int port, int diagnosticsPort, String definedCaches,
            String... identity) {
        this.process = process;
        this.port = port;
        this.diagnosticsPort = diagnosticsPort;
        this.definedCaches = definedCaches;
        this.identity = identity;
    }

    /**
     * Stops this node and starts it again where it was (same ports and cluster), with empty data:
     * a restart after an outage.
     *
     * @return the new process
     * @throws Exception when it does not start
     */
    public InfinispanServer restart() throws Exception {
        close();
        return launch(identity[0], identity[1], Integer.parseInt(identity[2]), identity[3], port, true, diagnosticsPort, definedCaches);
    }

    /**
     * Stops this node and starts it again where it was, on the data it left behind: what a cache
     * with a file store keeps survives.
     *
     * @return the new process
     * @throws Exception when it does not start
     */
    public InfinispanServer restartKeepingData() throws Exception {
        close();
        return launch(identity[0], identity[1], Integer.parseInt(identity[2]), identity[3], port, false,
                diagnosticsPort, definedCaches);
    }

    /**
     * Starts one node and waits until it is healthy.
     *
     * @param node the node's name, also its work folder under target/infinispan
     * @param cluster the cluster's name
     * @param jgroupsPort this node's JGroups port
     * @param initialHosts every member, e.g. {@code 127.0.0.1[7800],127.0.0.1[7801]}
     * @return the running server
     * @throws Exception when it does not start within 90 s
     */
    public static InfinispanServer start(String node, String cluster, int jgroupsPort, String initialHosts) throws Exception {
        return start(node, cluster, jgroupsPort, initialHosts, ChildProcess.freePort());
    }

    /**
     * Starts one node on a given Hot Rod port (to restart a node where its clients expect it).
     *
     * @param node the node's name, also its work folder under target/infinispan
     * @param cluster the cluster's name
     * @param jgroupsPort this node's JGroups port
     * @param initialHosts every member
     * @param port its Hot Rod and REST port
     * @return the running server
     * @throws Exception when it does not start within 90 s
     */
    public static InfinispanServer start(String node, String cluster, int jgroupsPort, String initialHosts, int port)
            throws Exception {
        return launch(node, cluster, jgroupsPort, initialHosts, port, true, 0, null);
    }

    /**
     * Starts one node on the "partitionable" JGroups stack of the test configuration: it can be
     * cut off from its peers ({@link #isolate()}) and joined again ({@link #heal()}), and it
     * notices a lost peer within about 4 s and a healed partition within about 3 s.
     *
     * @param node the node's name
     * @param cluster the cluster's name
     * @param jgroupsPort this node's JGroups port
     * @param initialHosts every member
     * @param definedCaches caches to define in the server's own configuration, as the cache
     *     elements of a {@code <cache-container>} (so that every node has them before it starts),
     *     or null
     * @return the running server
     * @throws Exception when it does not start within 90 s
     */
    public static InfinispanServer partitionable(String node, String cluster, int jgroupsPort, String initialHosts,
            String definedCaches) throws Exception {
        return launch(node, cluster, jgroupsPort, initialHosts, ChildProcess.freePort(), true, ChildProcess.freePort(),
                definedCaches);
    }

    private static InfinispanServer launch(String node, String cluster, int jgroupsPort, String initialHosts, int port,
            boolean fresh, int diagnosticsPort, String definedCaches) throws Exception {
        String lib = System.getProperty("infinispan.server.lib", "test-server/target/server-lib");
        Path root = Path.of("target", "infinispan", node).toAbsolutePath();
        if (fresh) {
            WorkFolders.deleteTree(root);
        }
        Path conf = Files.createDirectories(root.resolve("conf"));
        for (String file : CONF) {
            try (InputStream in = InfinispanServer.class.getResourceAsStream("/infinispan-server/conf/" + file)) {
                Files.copy(in, conf.resolve(file), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Path log = root.resolve("console.log");
        // -Dinfinispan.server.heap: the benchmarks keep far more entries alive than the tests
        List<String> command = new java.util.ArrayList<>(List.of("java",
                "-Xmx" + System.getProperty("infinispan.server.heap", "384m"),
                "-Djava.net.preferIPv4Stack=true",
                "-Djava.util.logging.manager=org.infinispan.server.loader.LogManager",
                "-Djgroups.bind_addr=127.0.0.1",
                "-Didem.jgroups.port=" + jgroupsPort,
                "-Didem.initial.hosts=" + initialHosts,
                "-Didem.cluster=" + cluster,
                "-Didem.node=" + node,
                "-Didem.port=" + port,
                "-cp", lib + "/*", "org.infinispan.server.Bootstrap",
                "-s", root.toString(), "-n", node));
        if (diagnosticsPort != 0) {
            command.addAll(1, List.of("-Didem.jgroups.stack=partitionable", "-Didem.diag.port=" + diagnosticsPort));
        }
        if (definedCaches != null) {
            // a second configuration file, overlaid on infinispan.xml by the server
            Files.writeString(conf.resolve("caches.xml"), "<infinispan xmlns=\"urn:infinispan:config:15.2\">"
                    + "<cache-container name=\"default\">" + definedCaches + "</cache-container></infinispan>");
            command.addAll(List.of("-c", "infinispan.xml", "-c", "caches.xml"));
        }
        InfinispanServer server = new InfinispanServer(ChildProcess.start(command, log), port, diagnosticsPort,
                definedCaches, node, cluster, String.valueOf(jgroupsPort), initialHosts);
        try {
            server.awaitHealthy(Duration.ofSeconds(90));
        } catch (Exception | Error e) {
            server.close();
            throw e;
        }
        return server;
    }

    /**
     * @param jgroupsPort the JGroups port
     * @return a one-node server with a cluster name of its own
     * @throws Exception when it does not start
     */
    public static InfinispanServer single(String node, int jgroupsPort) throws Exception {
        return start(node, "idem-" + node + "-" + ProcessHandle.current().pid(), jgroupsPort,
                "127.0.0.1[" + jgroupsPort + "]");
    }

    /** @return its Hot Rod (and REST) port on 127.0.0.1 */
    public int port() {
        return port;
    }

    /** @return the Hot Rod client properties, as an application would put them into MicroProfile Config */
    public Properties clientProperties() {
        Properties client = new Properties();
        client.setProperty("infinispan.client.hotrod.server_list", "127.0.0.1:" + port);
        client.setProperty("infinispan.client.hotrod.auth_username", USER);
        client.setProperty("infinispan.client.hotrod.auth_password", PASSWORD);
        client.setProperty("infinispan.client.hotrod.sasl_mechanism", "SCRAM-SHA-512");
        client.setProperty("infinispan.client.hotrod.connect_timeout", "3000");
        client.setProperty("infinispan.client.hotrod.socket_timeout", "3000");
        client.setProperty("infinispan.client.hotrod.max_retries", "1");
        return client;
    }

    /**
     * Waits until this node sees the given number of cluster members and reports the cluster
     * healthy (rebalanced).
     *
     * @param members how many nodes
     * @param timeout the longest wait
     * @throws Exception when it does not happen in time
     */
    public void awaitMembers(int members, Duration timeout) throws Exception {
        awaitHealth(timeout, "\"number_of_nodes\":" + members, "\"health_status\":\"HEALTHY\"");
    }

    /**
     * Waits until this node's cache-manager health ({@link #health()}, spaces left out) contains
     * every one of the given fragments.
     *
     * @param timeout the longest wait
     * @param expected JSON fragments, e.g. {@code "number_of_nodes":1}
     * @throws Exception when it does not happen in time
     */
    public void awaitHealth(Duration timeout, String... expected) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String health = "";
        while (System.nanoTime() < deadline) {
            String answer = health();
            health = answer.replace(" ", "");
            if (answer.startsWith("200 ") && java.util.Arrays.stream(expected).allMatch(health::contains)) {
                return;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("the health of " + identity[0] + " did not show " + String.join(" and ", expected)
                + " within " + timeout + ": " + health);
    }

    private void awaitHealthy(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        URL health = new URL("http://127.0.0.1:" + port + "/rest/v2/container/health/status");
        while (System.nanoTime() < deadline) {
            process.assertAlive();
            try {
                HttpURLConnection connection = (HttpURLConnection) health.openConnection();
                connection.setConnectTimeout(1000);
                connection.setReadTimeout(1000);
                if (connection.getResponseCode() == 200
                        && new String(connection.getInputStream().readAllBytes()).contains("HEALTHY")) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new AssertionError("Infinispan did not become healthy within " + timeout + "; see " + process.log());
    }

    /** @return the client properties of {@link #clientProperties()} with the {@value #ADMIN} user */
    public Properties adminClientProperties() {
        Properties client = clientProperties();
        client.setProperty("infinispan.client.hotrod.auth_username", ADMIN);
        client.setProperty("infinispan.client.hotrod.auth_password", ADMIN_PASSWORD);
        return client;
    }

    /**
     * One call to the server's REST API, authenticated as {@value #USER}.
     *
     * @param method the HTTP method
     * @param path from {@code /rest/v2/...}
     * @param body sent as {@code application/json} when not null
     * @param headers further request headers, name then value
     * @return the status, a space, then the body (empty when none)
     * @throws IOException when the server cannot be reached
     */
    public String rest(String method, String path, String body, String... headers) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) new URL("http://127.0.0.1:" + port + path).openConnection();
        // bounded: a server that is alive but stuck must fail the call, not hang the test
        connection.setConnectTimeout(10_000);
        connection.setReadTimeout(30_000);
        connection.setRequestMethod(method);
        connection.setRequestProperty("Authorization", "Basic " + java.util.Base64.getEncoder()
                .encodeToString((USER + ":" + PASSWORD).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        connection.setRequestProperty("Accept", "application/json");
        for (int i = 0; i + 1 < headers.length; i += 2) {
            connection.setRequestProperty(headers[i], headers[i + 1]);
        }
        if (body != null) {
            connection.setDoOutput(true);
            connection.setRequestProperty("Content-Type", "application/json");
            connection.getOutputStream().write(body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        int status = connection.getResponseCode();
        InputStream in = status < 400 ? connection.getInputStream() : connection.getErrorStream();
        String answer = in == null ? "" : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        return status + " " + answer;
    }

    /**
     * Cuts this node off from every peer, both ways, as a network partition would: its JGroups
     * DISCARD protocol drops every message it would send or receive (its Hot Rod and REST
     * endpoint stay reachable, as they would for clients on its side of the split).
     *
     * @throws IOException when the node's diagnostics do not answer
     */
    public void isolate() throws IOException {
        discardAll(true);
    }

    /**
     * Ends {@link #isolate()}: the node hears its peers again and the partitions merge.
     *
     * @throws IOException when the node's diagnostics do not answer
     */
    public void heal() throws IOException {
        discardAll(false);
    }

    private void discardAll(boolean discard) throws IOException {
        if (diagnosticsPort == 0) {
            throw new IllegalStateException("started without the partitionable stack: use InfinispanServer.partitionable");
        }
        String answer = probe("jmx=DISCARD.discard_all=" + discard) + probe("jmx=DISCARD.discard_all");
        if (!answer.contains("discard_all=" + discard)) {
            throw new IOException("DISCARD.discard_all did not become " + discard + " on " + identity[0] + ": " + answer);
        }
    }

    /** One request to JGroups' diagnostics over TCP (the probe protocol: the request ended by a new line, then the answer to the end). */
    private String probe(String request) throws IOException {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", diagnosticsPort)) {
            socket.setSoTimeout(5000);
            socket.getOutputStream().write((request + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
            socket.shutdownOutput();
            return new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    /**
     * @return the health of this node's cache manager as its REST API reports it (members and
     *     status), for waiting on a split or a merge
     * @throws IOException when the node does not answer
     */
    public String health() throws IOException {
        return rest("GET", "/rest/v2/container/health", null);
    }

    /** @return whether the server's process is still running (not stopped, killed or crashed) */
    public boolean isRunning() {
        return process.isAlive();
    }

    /**
     * Removes every cache but the server's own (named {@code ___...}): the server then holds no
     * record and no cache definition, for a test that shares it with earlier ones. The registered
     * schemas stay (the library registers the same one again, and keeps a newer one).
     *
     * @throws IOException when the server does not answer or refuses
     */
    public void removeCaches() throws IOException {
        String listed = rest("GET", "/rest/v2/caches", null);
        if (!listed.startsWith("200 ")) {
            throw new IOException("listing the caches of " + identity[0] + " failed: " + listed);
        }
        java.util.regex.Matcher name = java.util.regex.Pattern.compile("\"([^\"]+)\"").matcher(listed);
        while (name.find()) {
            if (!name.group(1).startsWith("___")) {
                String removed = rest("DELETE", "/rest/v2/caches/" + java.net.URLEncoder.encode(name.group(1),
                        java.nio.charset.StandardCharsets.UTF_8), null);
                if (!removed.startsWith("200") && !removed.startsWith("204") && !removed.startsWith("404")) {
                    throw new IOException("removing the cache " + name.group(1) + " failed: " + removed);
                }
            }
        }
    }

    /**
     * Kills the node at once (SIGKILL), as a crash would.
     *
     * @throws InterruptedException when interrupted while waiting
     */
    public void kill() throws InterruptedException {
        process.kill();
    }

    /**
     * Sends the server a signal by its PID: {@code STOP} freezes it (a slow store, a long GC
     * pause), {@code CONT} thaws it.
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

    /**
     * @param name the cache's name
     * @return the store's own default cache configuration under that name, as a
     *     {@code <cache-container>} element to define it on the servers ({@link #partitionable}):
     *     what docs/stores/infinispan.md tells a cluster to define
     */
    public static String storeDefaultCache(String name) {
        return InfinispanSettings.defaultCacheConfiguration(InfinispanSettings.DEFAULT_MAX_ENTRIES)
                .replaceFirst("<distributed-cache ", "<distributed-cache name=\"" + name + "\" ");
    }

    /**
     * @param count how many
     * @return that many free JGroups ports ({@link #freeJGroupsPort()}), one per node of a cluster
     * @throws IOException when there are not enough
     */
    public static int[] freeJGroupsPorts(int count) throws IOException {
        int[] ports = new int[count];
        ports[0] = freeJGroupsPort();
        for (int i = 1; i < count; i++) {
            int candidate = ports[i - 1] + 1;
            while (!ChildProcess.free(candidate) || !ChildProcess.free(candidate + 50_000)) {
                candidate++;
            }
            ports[i] = candidate;
        }
        return ports;
    }

    /** @return a free port below 15535 on loopback, so that JGroups' failure detection (port + 50000) fits */
    public static int freeJGroupsPort() throws IOException {
        for (int candidate = 7800 + (int) (ProcessHandle.current().pid() % 500); candidate < 15_000; candidate += 7) {
            if (ChildProcess.free(candidate) && ChildProcess.free(candidate + 50_000)) {
                return candidate;
            }
        }
        throw new IOException("no free JGroups port");
    }
}
