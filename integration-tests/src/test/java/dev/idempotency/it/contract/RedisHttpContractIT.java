package dev.idempotency.it.contract;

import static dev.idempotency.it.support.Http.newKey;
import static org.assertj.core.api.Assertions.assertThat;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.RedisForTests;

/**
 * The HTTP contract on the Redis store: a real redis-server of its own, the store's ACL user with
 * a password, the store the deployment's only store module (the memory-store variant of the
 * sample plus the Redis store's jars).
 */
@ExtendWith({RedisForTests.class, ArquillianExtension.class})
@RunAsClient
class RedisHttpContractIT extends HttpContractChecks {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return withContractResources(Deployments.sampleAppOnRedis("contract-redis", CONFIG, RedisForTests.settings()));
    }

    @Test
    void theRecordsAreInThisRedis() {
        long before = RedisForTests.records();

        assertThat(http.postJson(PAYMENTS, newKey(), ORDER).statusCode()).isEqualTo(201);

        assertThat(RedisForTests.records() - before).as("records under idem: in the test's redis-server").isEqualTo(1);
    }
}
