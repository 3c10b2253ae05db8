package dev.idempotency.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.jboss.shrinkwrap.api.exporter.ZipExporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;

import dev.idempotency.it.broken.BrokenConsumers;
import dev.idempotency.it.consumers.OrderMessage;
import dev.idempotency.it.support.Deployments;

/**
 * A bad configuration value or definition fails the deployment, with a coded message that names
 * the bean, the method, the config key, the value and what is allowed. Runs Payara Micro as its own process
 * (loopback only) and reads its log; the process is always stopped, by its PID.
 */
class DeploymentFailureIT {

    @Test
    void aTtlShorterThanTheLeaseFailsTheDeploymentWithACodedMessage() throws Exception {
        WebArchive war = Deployments.sampleApp("bad-config",
                "dev.idempotency.sample.PaymentResource/create/Idempotent/ttl=PT30S\n");

        String log = deployAndReadLog(war, "bad-config");

        assertThat(log).contains("IDEMP0103: bean dev.idempotency.sample.PaymentResource, method create: "
                + "dev.idempotency.sample.PaymentResource/create/Idempotent/ttl='PT30S' is shorter than "
                + "@Idempotent(lease)='PT60S'");
    }

    @Test
    void everyBadNonHttpDefinitionIsReportedAndFailsTheDeployment() throws Exception {
        WebArchive war = Deployments.sampleApp("bad-consumers", "")
                .addClasses(OrderMessage.class, BrokenConsumers.class, BrokenConsumers.NoKeySource.class,
                        BrokenConsumers.BadPath.class, BrokenConsumers.KeyWithoutIdempotent.class,
                        BrokenConsumers.StreamResult.class);

        String log = deployAndReadLog(war, "bad-consumers");

        String broken = BrokenConsumers.class.getName() + "$";
        assertThat(log)
                .contains("IDEMP0109: bean " + broken + "NoKeySource, method onMessage: @Idempotent has no key source")
                .contains("IDEMP0110: bean " + broken + "BadPath, method onMessage: @IdempotencyKey(\"orderNumber\") on "
                        + "parameter 0: 'orderNumber' is not a property of " + OrderMessage.class.getName())
                .contains("IDEMP0111: bean " + broken + "KeyWithoutIdempotent, method onMessage: @IdempotencyKey is on a "
                        + "parameter of a method without @Idempotent")
                .contains("IDEMP0112: bean " + broken + "StreamResult, method onMessage: the return type "
                        + "java.util.stream.Stream<java.lang.String> cannot be stored and replayed");
    }

    /**
     * Deploys the archive on a Payara Micro of its own and returns its log, once it is up; asserts
     * that the application was not deployed. The process is always stopped.
     */
    private static String deployAndReadLog(WebArchive archive, String name) throws Exception {
        Path work = Files.createDirectories(Path.of("target", "deployment-failure"));
        File war = work.resolve(name + ".war").toFile();
        archive.as(ZipExporter.class).exportTo(war, true);
        Path log = work.resolve(name + ".log");
        int port = freePort();

        Process payara = new ProcessBuilder("java", "-Dhazelcast.socket.bind.any=false",
                "-jar", System.getProperty("payara.microJar"),
                "--clustermode", "tcpip:127.0.0.1:6900", "--interfaces", "127.0.0.1",
                "--clustername", "idempotency-deployment-failure", "--port", String.valueOf(port),
                "--prebootcommandfile", System.getProperty("loopback.commands"),
                "--deploy", war.getAbsolutePath())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            String output = awaitLog(log, payara, Duration.ofSeconds(150));
            HttpResponse<String> answer = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/" + name + "/api/payments/executions"))
                            .timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).as("the application is not deployed").isEqualTo(404);
            return output;
        } finally {
            payara.destroy();
            if (!payara.waitFor(20, TimeUnit.SECONDS)) {
                payara.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Waits until Payara Micro reports itself ready (it keeps running without the failed app). */
    private static String awaitLog(Path log, Process payara, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            String output = Files.readString(log);
            if (output.contains(" ready in ") || !payara.isAlive()) {
                return output;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("Payara Micro did not start within " + timeout + "; see " + log);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
