package dev.idempotency.it.serverlog;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.idempotency.it.broken.AsynchronousEjbConsumer;
import dev.idempotency.it.broken.BrokenConsumers;
import dev.idempotency.it.consumers.OrderMessage;
import dev.idempotency.it.overload.SmallPool;
import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.PostgreSqlDataSource;
import dev.idempotency.it.support.ServerProcess;

/**
 * A bad configuration value or definition fails the deployment, with a coded message that names
 * the bean, the method, the config key, the value and what is allowed. Runs the pass's server
 * (Payara Micro, WildFly, Open Liberty) as a process of its own, loopback only, with the three
 * broken archives deployed side by side (one server start a pass instead of three: each archive's
 * failure is its own, and each test checks that its archive is not deployed and that the log
 * names its own bean), and reads its log; the process is always stopped.
 */
class DeploymentFailureIT {

    private static final String BAD_CONFIG = "bad-config";
    private static final String BAD_CONSUMERS = "bad-consumers";
    private static final String SMALL_POOL = "small-pool";

    private static ServerProcess server;

    @BeforeAll
    static void deployTheBrokenArchives() throws Exception {
        WebArchive badConfig = Deployments.sampleApp(BAD_CONFIG,
                "dev.idempotency.sample.PaymentResource/create/Idempotent/ttl=PT30S\n");
        WebArchive badConsumers = Deployments.sampleApp(BAD_CONSUMERS, "")
                .addClasses(OrderMessage.class, BrokenConsumers.class, BrokenConsumers.NoKeySource.class,
                        BrokenConsumers.BadPath.class, BrokenConsumers.KeyWithoutIdempotent.class,
                        BrokenConsumers.StreamResult.class, AsynchronousEjbConsumer.class);
        WebArchive smallPool = Deployments.sampleApp(SMALL_POOL, "idempotency.jpa.max-own-transactions="
                + SmallPool.SIZE + "\n");
        smallPool.deleteClass(PostgreSqlDataSource.class);
        smallPool.addClass(SmallPool.class);
        server = ServerProcess.start("deployment-failures", badConfig, badConsumers, smallPool);
    }

    @AfterAll
    static void stopTheServer() throws InterruptedException {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aTtlShorterThanTheLeaseFailsTheDeploymentWithACodedMessage() throws Exception {
        String log = refusedAndLogged(BAD_CONFIG, "IDEMP0103");

        assertThat(log).contains("IDEMP0103: bean dev.idempotency.sample.PaymentResource, method create: "
                + "dev.idempotency.sample.PaymentResource/create/Idempotent/ttl='PT30S' is shorter than "
                + "@Idempotent(lease)='PT60S'");
    }

    @Test
    void everyBadNonHttpDefinitionIsReportedAndFailsTheDeployment() throws Exception {
        String log = refusedAndLogged(BAD_CONSUMERS, "IDEMP0109");

        String broken = BrokenConsumers.class.getName() + "$";
        assertThat(log)
                .contains("IDEMP0109: bean " + broken + "NoKeySource, method onMessage: @Idempotent has no key source")
                .contains("IDEMP0110: bean " + broken + "BadPath, method onMessage: @IdempotencyKey(\"orderNumber\") on "
                        + "parameter 0: 'orderNumber' is not a property of " + OrderMessage.class.getName())
                .contains("IDEMP0111: bean " + broken + "KeyWithoutIdempotent, method onMessage: @IdempotencyKey is on a "
                        + "parameter of a method without @Idempotent")
                .contains("IDEMP0112: bean " + broken + "StreamResult, method onMessage: the return type "
                        + "java.util.stream.Stream<java.lang.String> cannot be stored and replayed")
                .contains("IDEMP0113: bean " + AsynchronousEjbConsumer.class.getName()
                        + ", method onMessage: @Idempotent is not supported on EJB @Asynchronous methods");
    }

    @Test
    void anOwnTransactionBoundAtThePoolsSizeFailsTheDeploymentNamingThePool() throws Exception {
        String log = refusedAndLogged(SMALL_POOL, "IDEMP0512");

        assertThat(log).contains("IDEMP0512: library setting idempotency.jpa.max-own-transactions='" + SmallPool.SIZE
                + "' is not allowed with the datasource '" + PostgreSqlDataSource.JNDI_NAME + "' (@DataSourceDefinition on "
                + SmallPool.class.getName() + ", maxPoolSize=" + SmallPool.SIZE + ")")
                .contains("allowed: 1 to " + (SmallPool.SIZE - 1));
    }

    /**
     * Asserts the archive was refused (its context root answers 404) for its own reason (the
     * server's record of its failure names the code), and returns the server's log.
     */
    private static String refusedAndLogged(String name, String code) throws Exception {
        HttpResponse<String> answer = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(server.url(name).toURI().resolve("api/payments/executions"))
                        .timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as("the application %s is not deployed", name).isEqualTo(404);
        assertThat(server.failureOf(name + ".war")).as("why %s failed", name).contains(code);
        return server.log();
    }
}
