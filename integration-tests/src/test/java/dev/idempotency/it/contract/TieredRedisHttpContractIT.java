package dev.idempotency.it.contract;

import static dev.idempotency.it.support.Http.newKey;
import static dev.idempotency.it.support.PaymentsDatabase.recordState;
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
 * The HTTP contract on the tiered store with Redis in front: a real redis-server of its own (the
 * store's ACL user with a password) in front of the JPA store on PostgreSQL, both store modules in
 * the deployment.
 */
@ExtendWith({RedisForTests.class, ArquillianExtension.class})
@RunAsClient
class TieredRedisHttpContractIT extends HttpContractChecks {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return withContractResources(Deployments.sampleAppOnTieredRedisStore("contract-tiered-redis", CONFIG,
                RedisForTests.settings()));
    }

    @Test
    void aFirstExecutionIsRecordedInTheDatabaseAndCopiedToRedis() {
        long before = RedisForTests.records();
        String key = newKey();

        assertThat(http.postJson(PAYMENTS, key, ORDER).statusCode()).isEqualTo(201);

        assertThat(recordState(AtomicCompletionIT.PAYMENTS_ENDPOINT, null, key)).as("the database decided it")
                .contains("COMPLETED");
        assertThat(RedisForTests.records() - before).as("the front's copy under idem: in the test's redis-server")
                .isEqualTo(1);
    }
}
