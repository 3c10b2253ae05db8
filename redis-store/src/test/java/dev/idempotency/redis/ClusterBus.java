package dev.idempotency.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The cluster bus of a partitionable Redis Cluster: a loopback proxy per node on the bus port it
 * announces ({@code cluster-announce-bus-port}, its port + 20000), forwarding to its real one (its
 * port + 10000). Every bus link is then made through the proxy of the node it reaches, and its
 * first message names the node that opened it (the header's base port, bytes 10 and 11), so a
 * node can be cut off from every peer both ways: its proxy drops every link, and the others drop
 * the links it opened. Nothing else is touched: clients and replication use the nodes' own ports.
 */
final class ClusterBus implements AutoCloseable {

    /** sig, totlen, ver, then the sender's base port (the Redis 7 clusterMsg header) */
    private static final int HEADER_TO_PORT = 12;

    private final Set<Integer> cutOff = ConcurrentHashMap.newKeySet();
    private final List<NodeProxy> proxies = new CopyOnWriteArrayList<>();

    /** @return the bus port a node of this base port announces */
    static int announcedPort(int port) {
        return port + 20000;
    }

    /** Opens the proxy of a node, before the node starts. */
    void add(int port) throws IOException {
        proxies.add(new NodeProxy(port));
    }

    /** Cuts the node of this base port off from every peer: its links closed, new ones refused. */
    void isolate(int port) {
        cutOff.add(port);
        proxies.forEach(NodeProxy::dropCutLinks);
    }

    /** Ends {@link #isolate}: the node's links are made again by the nodes themselves. */
    void heal(int port) {
        cutOff.remove(port);
    }

    @Override
    public void close() {
        proxies.forEach(NodeProxy::close);
    }

    /** A bus link through a proxy: who opened it, to whom, its two sockets. */
    private record Link(int from, int to, Socket in, Socket out) {

        boolean cut(Set<Integer> cutOff) {
            return cutOff.contains(from) || cutOff.contains(to);
        }

        void close() {
            closeQuietly(in);
            closeQuietly(out);
        }
    }

    private final class NodeProxy {

        private final int port;
        private final ServerSocket listener;
        private final List<Link> links = new CopyOnWriteArrayList<>();

        NodeProxy(int port) throws IOException {
            this.port = port;
            this.listener = new ServerSocket(announcedPort(port), 50, InetAddress.getLoopbackAddress());
            Thread acceptor = new Thread(this::accept, "cluster-bus-" + port);
            acceptor.setDaemon(true);
            acceptor.start();
        }

        private void accept() {
            while (!listener.isClosed()) {
                Socket in;
                try {
                    in = listener.accept();
                } catch (IOException closed) {
                    return;
                }
                Thread opening = new Thread(() -> open(in), "cluster-bus-open-" + port);
                opening.setDaemon(true);
                opening.start();
            }
        }

        /** Reads the link's first header up to its sender, then forwards it unless either end is cut off. */
        private void open(Socket in) {
            try {
                in.setSoTimeout(10_000);
                byte[] header = in.getInputStream().readNBytes(HEADER_TO_PORT);
                in.setSoTimeout(0);
                if (header.length < HEADER_TO_PORT) {
                    closeQuietly(in);
                    return;
                }
                int from = (header[10] & 0xff) << 8 | header[11] & 0xff;
                Socket out = new Socket();
                out.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port + 10000), 2000);
                Link link = new Link(from, port, in, out);
                links.add(link);
                // checked after it is listed, so an isolate() meanwhile cannot miss it
                if (link.cut(cutOff)) {
                    drop(link);
                    return;
                }
                out.getOutputStream().write(header);
                pump(link, in, out);
                pump(link, out, in);
            } catch (IOException e) {
                closeQuietly(in);
            }
        }

        private void pump(Link link, Socket from, Socket to) {
            Thread thread = new Thread(() -> {
                byte[] buffer = new byte[64 * 1024];
                try {
                    InputStream input = from.getInputStream();
                    OutputStream output = to.getOutputStream();
                    int n;
                    while ((n = input.read(buffer)) >= 0) {
                        output.write(buffer, 0, n);
                    }
                } catch (IOException closed) {
                    // either end went away, or the link was cut
                } finally {
                    drop(link);
                }
            }, "cluster-bus-pump-" + port);
            thread.setDaemon(true);
            thread.start();
        }

        void dropCutLinks() {
            for (Link link : links) {
                if (link.cut(cutOff)) {
                    drop(link);
                }
            }
        }

        private void drop(Link link) {
            links.remove(link);
            link.close();
        }

        void close() {
            closeQuietly(listener);
            links.forEach(Link::close);
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception ignored) {
            // closing
        }
    }
}
