package dev.idempotency.it.campaign;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jboss.shrinkwrap.api.spec.WebArchive;

import dev.idempotency.it.support.PayaraMicroProcess;
import dev.idempotency.testing.ChildProcess;

/**
 * One Payara Micro node of a campaign: the same applications (one per store under test) on the
 * same loopback port each time it is started again, so that clients keep their addresses. Each start has a log of its own
 * ({@code target/payara-<name>-<n>}).
 */
final class CampaignNode implements AutoCloseable {

    static final String KILL = "kill -9 node";
    static final String FREEZE = "SIGSTOP node past its lease";

    /** How often a node is started before its restart counts as failed. */
    static final int MAX_STARTS = 3;

    private final String name;
    private final WebArchive[] apps;
    private final int port;
    private PayaraMicroProcess server;
    /** What a load balancer's health check would say: from its kill until it is ready again, no. */
    private volatile boolean serving;
    private int starts;
    private boolean closed;

    private CampaignNode(String name, List<WebArchive> apps, int port) {
        this.name = name;
        this.apps = apps.toArray(WebArchive[]::new);
        this.port = port;
    }

    /**
     * @param name the node's name
     * @param apps the applications, each on its own context root
     * @return the node, not started yet
     * @throws Exception when no port is free
     */
    static CampaignNode of(String name, List<WebArchive> apps) throws Exception {
        return new CampaignNode(name, apps, ChildProcess.freePort());
    }

    /**
     * @param contextRoot an application's context root
     * @return its base URI on this node
     */
    URI base(String contextRoot) {
        return URI.create("http://127.0.0.1:" + port + "/" + contextRoot + "/");
    }

    /**
     * Starts the node and waits until it is ready with every application deployed. A node started
     * while PostgreSQL is down (the nemesis killed it during a node's restart) deploys without the
     * applications whose persistence unit needs the database at deployment (EclipseLink on Payara:
     * {@code JPADeployer} fails), and would answer {@code 404} for them to the end: it is started
     * again, as an orchestrator whose readiness check asks every application would.
     *
     * @throws Exception when it does not start, or not with every application in {@value #MAX_STARTS} starts
     */
    synchronized void start() throws Exception {
        if (closed) {
            throw new IllegalStateException(name + " is closed: not started again");
        }
        for (int attempt = 1;; attempt++) {
            server = PayaraMicroProcess.start(name + "-" + ++starts, List.of(), port, apps);
            List<String> missing = undeployed();
            if (missing.isEmpty()) {
                serving = true;
                return;
            }
            server.close();
            server = null;
            if (attempt == MAX_STARTS) {
                throw new IllegalStateException(name + " started " + MAX_STARTS + " times without " + missing);
            }
            System.out.println("campaign: " + name + " started without " + missing + ", starting it again");
        }
    }

    /** @return the context roots of the applications that do not answer (not deployed) */
    private List<String> undeployed() throws InterruptedException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        List<String> missing = new ArrayList<>();
        for (WebArchive app : apps) {
            String root = app.getName().replaceFirst("\\.war$", "");
            HttpRequest executions = HttpRequest.newBuilder(base(root).resolve("api/payments/executions"))
                    .timeout(Duration.ofSeconds(10)).GET().build();
            try {
                if (client.send(executions, HttpResponse.BodyHandlers.discarding()).statusCode() == 404) {
                    missing.add(root);
                }
            } catch (IOException unanswered) {
                missing.add(root);
            }
        }
        return missing;
    }

    /**
     * @return whether a load balancer would send it requests: not from its kill until it is ready
     *     again (it answers {@code 404} while its application deploys), but while it is frozen
     *     (a health check would not notice before the requests time out)
     */
    boolean serving() {
        return serving;
    }

    /**
     * Kills the node ({@code kill -9}): requests in flight die with it, their transactions never end.
     *
     * @throws InterruptedException when interrupted
     */
    synchronized void kill() throws InterruptedException {
        serving = false;
        server.kill();
        server.close();
        server = null;
    }

    /**
     * Freezes the node ({@code SIGSTOP}), mid-request: a long GC pause, until {@link #thaw()}.
     *
     * @throws Exception when the signal cannot be sent
     */
    synchronized void freeze() throws Exception {
        server.signal("STOP");
    }

    /**
     * Thaws the node ({@code SIGCONT}): it goes on where it was, and tries to commit.
     *
     * @throws Exception when the signal cannot be sent
     */
    synchronized void thaw() throws Exception {
        server.signal("CONT");
    }

    @Override
    public synchronized void close() throws InterruptedException {
        closed = true;
        if (server != null) {
            server.close();
            server = null;
        }
    }
}
