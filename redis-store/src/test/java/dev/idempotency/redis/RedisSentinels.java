package dev.idempotency.redis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A master, its replica and three Sentinels monitoring it as {@value #MASTER}, each a
 * {@code redis-server} process of its own on a loopback port: the master and the replica as
 * {@link RedisServer} (ACL user, {@code requirepass}), the Sentinels ({@code redis-server --sentinel})
 * without a password, agreeing with a quorum of 2 that the master is down after 1 s.
 */
public final class RedisSentinels implements AutoCloseable {

    /** The name the Sentinels monitor the master under. */
    public static final String MASTER = "idem-master";

    private static final Path SERVER = Path.of(System.getProperty("redis.server", "/usr/bin/redis-server"));
    private static final Path WORK = Path.of(System.getProperty("redis.work", "target/redis"));

    private static final Set<ProcessHandle> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(ProcessHandle::destroyForcibly)));
    }

    public final List<RedisServer> servers = new ArrayList<>();
    private final List<Process> sentinels = new ArrayList<>();
    private final List<Integer> sentinelPorts = new ArrayList<>();

    private RedisSentinels() {
    }

    /**
     * @param name the folders' prefix under target/redis
     * @param firstPort the master's port; the replica's is the next, the Sentinels' the three after
     * @return the master and its replica in sync, the Sentinels agreeing on the master
     */
    public static RedisSentinels start(String name, int firstPort) throws Exception {
        RedisSentinels group = new RedisSentinels();
        try {
            // a replica's full sync starts at once, not after the default 5 s wait for more replicas
            group.servers.add(RedisServer.start(name + "-master", firstPort, "--repl-diskless-sync-delay", "0"));
            group.servers.add(RedisServer.start(name + "-replica", firstPort + 1, "--replicaof", "127.0.0.1",
                    String.valueOf(firstPort), "--repl-diskless-sync-delay", "0"));
            RedisServer master = group.servers.get(0);
            master.await("the replica acknowledging", Duration.ofSeconds(20), () -> "1".equals(master.cli("WAIT", "1", "1000")));
            for (int i = 0; i < 3; i++) {
                group.startSentinel(name + "-sentinel-" + (i + 1), firstPort + 2 + i, firstPort);
            }
            group.awaitMaster(master.port, Duration.ofSeconds(20));
        } catch (Exception | Error e) {
            group.close();
            throw e;
        }
        return group;
    }

    private void startSentinel(String name, int port, int masterPort) throws Exception {
        Path dir = WORK.resolve(name).toAbsolutePath();
        Files.createDirectories(dir);
        Path config = dir.resolve("sentinel.conf");
        // a Sentinel rewrites its file: each start begins from this one
        Files.writeString(config, String.join("\n",
                "port " + port,
                "bind 127.0.0.1",
                "dir " + dir,
                "logfile " + dir.resolve("sentinel.log"),
                "sentinel announce-ip 127.0.0.1",
                "sentinel monitor " + MASTER + " 127.0.0.1 " + masterPort + " 2",
                "sentinel auth-pass " + MASTER + " " + RedisServer.ADMIN_PASSWORD,
                "sentinel down-after-milliseconds " + MASTER + " 1000",
                "sentinel failover-timeout " + MASTER + " 5000",
                "sentinel parallel-syncs " + MASTER + " 1",
                ""));
        if (RedisServer.listening(port)) {
            throw new IllegalStateException("port " + port + " is taken: a Sentinel of an earlier run left behind?");
        }
        Process process = new ProcessBuilder(SERVER.toString(), config.toString(), "--sentinel").redirectErrorStream(true)
                .redirectOutput(dir.resolve("stdout.log").toFile()).start();
        sentinels.add(process);
        RUNNING.add(process.toHandle());
        sentinelPorts.add(port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!"PONG".equals(sentinel(sentinels.size() - 1, "PING"))) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("Sentinel " + name + " did not start: " + Files.readString(dir.resolve("stdout.log")));
            }
            Thread.sleep(50);
        }
    }

    /** @return the Sentinels as the store's {@code idempotency.redis.uri} lists them */
    public String uris() {
        return String.join(",", sentinelPorts.stream().map(port -> "redis://127.0.0.1:" + port).toList());
    }

    /** @return the port of the master as the first Sentinel names it now */
    public int masterPort() {
        String[] address = sentinel(0, "SENTINEL", "get-master-addr-by-name", MASTER).split("\\R");
        return address.length == 2 ? Integer.parseInt(address[1].trim()) : -1;
    }

    /** @return the server that is the master now */
    public RedisServer master() {
        int port = masterPort();
        return servers.stream().filter(server -> server.port == port).findFirst().orElseThrow();
    }

    /** Waits until every Sentinel names the server on this port as the master, and knows the other two Sentinels. */
    public void awaitMaster(int port, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        for (int i = 0; i < sentinels.size(); i++) {
            int sentinel = i;
            while (!(sentinel(sentinel, "SENTINEL", "get-master-addr-by-name", MASTER).endsWith(String.valueOf(port))
                    && sentinel(sentinel, "SENTINEL", "master", MASTER).contains("num-other-sentinels\n2"))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Sentinel " + (sentinel + 1) + " does not name 127.0.0.1:" + port
                            + " as the master with two other Sentinels within " + limit + ": "
                            + sentinel(sentinel, "SENTINEL", "master", MASTER));
                }
                Thread.sleep(100);
            }
        }
    }

    /**
     * Runs redis-cli on a Sentinel.
     *
     * @param index which Sentinel, from 0
     * @return its output, trimmed
     */
    public String sentinel(int index, String... args) {
        return RedisServer.cli(sentinelPorts.get(index), List.of(args));
    }

    @Override
    public void close() {
        for (Process sentinel : sentinels) {
            sentinel.destroy();
            try {
                if (!sentinel.waitFor(5, TimeUnit.SECONDS)) {
                    sentinel.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            RUNNING.remove(sentinel.toHandle());
        }
        servers.forEach(RedisServer::close);
    }
}
