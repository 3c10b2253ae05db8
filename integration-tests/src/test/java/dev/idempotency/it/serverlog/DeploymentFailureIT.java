package dev.idempotency.it.serverlog;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.jboss.shrinkwrap.api.spec.WebArchive;
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
 * (Payara Micro, WildFly, Open Liberty) as a process of its own, loopback only, and reads its log;
 * the process is always stopped.
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
                        BrokenConsumers.StreamResult.class, AsynchronousEjbConsumer.class);

        String log = deployAndReadLog(war, "bad-consumers");

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
        WebArchive war = Deployments.sampleApp("small-pool", "idempotency.jpa.max-own-transactions=" + SmallPool.SIZE
                + "\n");
        war.deleteClass(PostgreSqlDataSource.class);
        war.addClass(SmallPool.class);

        String log = deployAndReadLog(war, "small-pool");

        assertThat(log).contains("IDEMP0512: library setting idempotency.jpa.max-own-transactions='" + SmallPool.SIZE
                + "' is not allowed with the datasource '" + PostgreSqlDataSource.JNDI_NAME + "' (@DataSourceDefinition on "
                + SmallPool.class.getName() + ", maxPoolSize=" + SmallPool.SIZE + ")")
                .contains("allowed: 1 to " + (SmallPool.SIZE - 1));
    }

    /** Deploys the archive on a server of its own, asserts it was refused, and returns the log. */
    private static String deployAndReadLog(WebArchive archive, String name) throws Exception {
        try (ServerProcess server = ServerProcess.start(name, archive)) {
            HttpResponse<String> answer = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(server.url(name).toURI().resolve("api/payments/executions"))
                            .timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).as("the application is not deployed").isEqualTo(404);
            return server.log();
        }
    }
}
