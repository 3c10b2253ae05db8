package dev.idempotency.benchmarks;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.idempotency.testing.ChildProcess;

/**
 * The benchmarks' own {@code redis-server}: a process of its own on 127.0.0.1 only, protected
 * mode on, a password, nothing on disk ({@code --save '' --appendonly no}), stopped by its PID
 * ({@link ChildProcess}). The binary is {@code -Dbench.redis.server}, else {@code redis-server}
 * on the PATH.
 */
final class OwnRedis implements AutoCloseable {

    static final String PASSWORD = "bench-secret";

    private final int port;
    private final ChildProcess process;

    private OwnRedis(int port, ChildProcess process) {
        this.port = port;
        this.process = process;
    }

    /**
     * @param port a free loopback port
     * @param dir its working directory (its log)
     * @return the started server, answering {@code PING}
     */
    static OwnRedis start(int port, Path dir) throws Exception {
        if (!ChildProcess.free(port)) {
            throw new IllegalStateException("port " + port + " is taken: a redis-server of an earlier run left behind?"
                    + " (-Dbench.redis.port picks another)");
        }
        Files.createDirectories(dir);
        ChildProcess process = ChildProcess.start(List.of(System.getProperty("bench.redis.server", "redis-server"),
                "--port", String.valueOf(port), "--bind", "127.0.0.1", "--protected-mode", "yes",
                "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--requirepass", PASSWORD),
                dir.resolve("redis.log"));
        OwnRedis redis = new OwnRedis(port, process);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!redis.answers()) {
            if (System.nanoTime() > deadline) {
                redis.close();
                throw new IllegalStateException("redis-server did not answer on port " + port + ": "
                        + process.logText());
            }
            process.assertAlive();
            Thread.sleep(50);
        }
        return redis;
    }

    /** @return whether it answers {@code AUTH} and {@code PING} (plain RESP, no client library: the runner has none) */
    private boolean answers() {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(1_000);
            OutputStream out = socket.getOutputStream();
            out.write(("AUTH " + PASSWORD + "\r\nPING\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] answer = new byte[64];
            int read = 0;
            while (read < 12) {
                int n = socket.getInputStream().read(answer, read, answer.length - read);
                if (n < 0) {
                    break;
                }
                read += n;
            }
            return new String(answer, 0, read, StandardCharsets.US_ASCII).startsWith("+OK\r\n+PONG\r\n");
        } catch (IOException e) {
            return false;
        }
    }

    int port() {
        return port;
    }

    @Override
    public void close() throws InterruptedException {
        process.close();
    }
}
