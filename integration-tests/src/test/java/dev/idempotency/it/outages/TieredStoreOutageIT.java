package dev.idempotency.it.outages;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.it.support.Campaign;
import dev.idempotency.it.support.Deployments;
import dev.idempotency.it.support.Http;
import dev.idempotency.it.support.InfinispanForTests;
import dev.idempotency.it.support.MixedLoad;
import dev.idempotency.it.support.PaymentsDatabase;
import dev.idempotency.it.support.PostgreSqlDataSource;

/**
 * The tiered store's promise: the Infinispan server in front stops (SIGTERM) in the middle of a
 * load of first requests and retries (8 in flight, half retries), and payments go on on JPA alone:
 * no {@code 503}, no order paid twice, every {@code 2xx} a payment. It comes back empty (no
 * persistence) and the load goes on: retries of keys completed before are answered from
 * PostgreSQL, not run again.
 */
@ExtendWith({InfinispanForTests.class, ArquillianExtension.class})
@RunAsClient
class TieredStoreOutageIT {

    static final Duration BEFORE_OUTAGE = Campaign.seconds(4, 10);
    static final Duration OUTAGE = Campaign.seconds(6, 12);
    static final Duration AFTER_RETURN = Campaign.seconds(6, 12);
    static final Duration GRACE = Duration.ofSeconds(2);

    @ArquillianResource
    URL url;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.sampleAppOnTieredStore("outage-tiered", "Idempotent/lease=PT5S",
                InfinispanForTests.clientProperties());
    }

    @Test
    void infinispanStoppedUnderLoadCostsNo503AndNoSecondPayment() throws Exception {
        Http http = new Http(url);
        String prefix = "o-tiered-" + UUID.randomUUID() + "-";
        MixedLoad load = new MixedLoad(http, prefix);

        MixedLoad.Outage outage = load.runWithOutage(8, BEFORE_OUTAGE, OUTAGE, Duration.ZERO, AFTER_RETURN,
                InfinispanForTests::stop, InfinispanForTests::restart);
        long stoppedAt = outage.stoppedAt();
        long restartAt = outage.restartAt();
        long backAt = outage.backAt();

        Map<String, Long> rows = PaymentsDatabase.rowsPerOrder(PostgreSqlDataSource.URL, prefix);
        List<MixedLoad.Key> keys = load.keys();
        long paidTwice = rows.values().stream().filter(n -> n > 1).count();
        long succeededUnpaid = keys.stream().filter(key -> key.succeeded() && rows.getOrDefault(key.orderId(), 0L) == 0)
                .count();
        long paidWhileDown = load.successesBetween(stoppedAt + GRACE.toNanos(), restartAt, false);
        long replayedWhileDown = load.successesBetween(stoppedAt + GRACE.toNanos(), restartAt, true);
        long paidAfterReturn = load.successesBetween(backAt, Long.MAX_VALUE, false);
        Map<Integer, Long> statuses = load.statuses();
        System.out.printf("tiered store, Infinispan down under load: %d requests on %d keys, answers %s;"
                        + " Infinispan down %.1f s, restart took %.1f s; orders paid: %d; paid twice: %d;"
                        + " a 2xx but no payment: %d; paid while Infinispan was down: %d (replays: %d);"
                        + " paid after it was back: %d%n",
                load.requests(), keys.size(), statuses, (restartAt - stoppedAt) / 1e9, (backAt - restartAt) / 1e9,
                rows.size(), paidTwice, succeededUnpaid, paidWhileDown, replayedWhileDown, paidAfterReturn);

        assertThat(paidTwice).as("no order paid twice").isZero();
        assertThat(succeededUnpaid).as("every 2xx stands for a payment").isZero();
        assertThat(statuses.getOrDefault(503, 0L)).as("no 503: JPA alone decides while Infinispan is down").isZero();
        assertThat(paidWhileDown).as("payments go on while Infinispan is down").isPositive();
        assertThat(paidAfterReturn).as("and after it came back").isPositive();
    }
}
