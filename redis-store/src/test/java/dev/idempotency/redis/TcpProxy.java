package dev.idempotency.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A loopback TCP proxy in front of a Redis server that can break a connection at the next waited
 * write: cut it when the client sends {@code WAIT} (instead of forwarding it), swallow the
 * {@code WAIT} (the server never sees it, the client never gets an answer), or cut it right after
 * forwarding a write's answer (a script's, or a plain {@code SET}'s). Every other byte is forwarded
 * as it is.
 */
final class TcpProxy implements AutoCloseable {

    /** What happens next; after it, everything is forwarded again. */
    enum OnWait {
        /** nothing */
        FORWARD,
        /** the next WAIT: the connection is cut instead */
        CUT,
        /** the next WAIT is never forwarded */
        SWALLOW,
        /** the next write's answer (a script's, or the claim's SET's) is forwarded, then the connection is cut */
        CUT_AFTER_WRITE
    }

    private static final byte[] WAIT = "\r\nWAIT\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EVALSHA = "\r\nEVALSHA\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EVAL = "\r\nEVAL\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SET = "\r\nSET\r\n".getBytes(StandardCharsets.US_ASCII);

    private final ServerSocket listener;
    private final int upstream;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile OnWait nextWait = OnWait.FORWARD;
    private volatile int broken;

    TcpProxy(int port, int upstream) throws IOException {
        this.listener = new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
        this.upstream = upstream;
        Thread acceptor = new Thread(this::accept, "proxy-" + port);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** @param what what happens to the next WAIT any client sends */
    void onNextWait(OnWait what) {
        nextWait = what;
    }

    /** @return how many WAITs were cut or swallowed */
    int broken() {
        return broken;
    }

    String uri() {
        return "redis://127.0.0.1:" + listener.getLocalPort();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), upstream), 2000);
                sockets.add(client);
                sockets.add(server);
                AtomicBoolean cutAfterAnswer = new AtomicBoolean();
                pump(client, server, true, cutAfterAnswer);
                pump(server, client, false, cutAfterAnswer);
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void pump(Socket from, Socket to, boolean toServer, AtomicBoolean cutAfterAnswer) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    if (toServer && nextWait == OnWait.CUT_AFTER_WRITE
                            && (contains(buffer, n, EVALSHA) || contains(buffer, n, EVAL) || contains(buffer, n, SET))) {
                        nextWait = OnWait.FORWARD;
                        cutAfterAnswer.set(true);
                    } else if (!toServer && cutAfterAnswer.get()) {
                        out.write(buffer, 0, n);
                        out.flush();
                        broken++;
                        from.close();
                        to.close();
                        return;
                    } else if (toServer && (nextWait == OnWait.CUT || nextWait == OnWait.SWALLOW)
                            && contains(buffer, n, WAIT)) {
                        OnWait what = nextWait;
                        nextWait = OnWait.FORWARD;
                        broken++;
                        if (what == OnWait.CUT) {
                            from.close();
                            to.close();
                            return;
                        }
                        continue; // swallowed
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException closed) {
                // the other side went away
            } finally {
                try {
                    from.close();
                    to.close();
                } catch (IOException ignored) {
                    // closing
                }
            }
        }, "proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private static boolean contains(byte[] buffer, int length, byte[] part) {
        outer:
        for (int i = 0; i + part.length <= length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (buffer[i + j] != part[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
