package dev.idempotency.it.outages;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.idempotency.it.support.Campaign;
import dev.idempotency.it.support.Http;
import dev.idempotency.it.support.MixedLoad;
import dev.idempotency.it.support.PaymentsDatabase;

/**
 * The store stops in the middle of a 60 s load of first requests and retries (8 in flight, half
 * of them retries of earlier keys), and comes back 15 s later; the load goes on for at least 20 s
 * after that. Counted against the rows the
 * payments database holds per order: payments made without a claim (an order whose every request
 * was refused with 503, yet paid) and payments made twice must both be 0, and nothing succeeds
 * while the store is down; the 503s and the time from the store's return to the first success
 * are reported. Run once per store. An interface, so that a class that extends another suite's
 * base (the Redis store's storms) runs it on the same deployment.
 */
public interface OutageUnderLoadChecks {

    // a short pass in every build; the figures in the docs come from the long one (Campaign)
    Duration LOAD = Campaign.seconds(20, 60);
    Duration BEFORE_OUTAGE = Campaign.seconds(5, 20);
    Duration OUTAGE = Campaign.seconds(6, 15);
    Duration AFTER_RETURN = Campaign.seconds(7, 20);
    Duration GRACE = Duration.ofSeconds(2);
    int IN_FLIGHT = 8;

    /** @return the deployment's address (Arquillian's) */
    URL url();

    /** @return the store's name, for the report */
    String store();

    /** Stops the store's server. */
    void stopStore() throws Exception;

    /** Starts it again, where it was, with what it persisted. */
    void startStore() throws Exception;

    /** @return the JDBC URL of the payments database */
    String paymentsDatabase();

    @Test
    default void aStoreOutageUnderLoadNeverPaysWithoutAClaimNorTwice() throws Exception {
        Http http = new Http(url());
        String prefix = "o-outage-" + UUID.randomUUID() + "-";
        long executionsBefore = http.count("api/payments/executions");
        MixedLoad load = new MixedLoad(http, prefix);

        MixedLoad.Outage outage = load.runWithOutage(IN_FLIGHT, BEFORE_OUTAGE, OUTAGE, LOAD, AFTER_RETURN,
                this::stopStore, this::startStore);
        long startedAt = outage.startedAt();
        long stoppedAt = outage.stoppedAt();
        long restartAt = outage.restartAt();
        long backAt = outage.backAt();

        Map<String, Long> rows = PaymentsDatabase.rowsPerOrder(paymentsDatabase(), prefix);
        List<MixedLoad.Key> keys = load.keys();
        long paidTwice = rows.values().stream().filter(n -> n > 1).count();
        long paidWithoutClaim = keys.stream().filter(key -> key.onlyRefused() && rows.getOrDefault(key.orderId(), 0L) > 0)
                .count();
        long succeededUnpaid = keys.stream().filter(key -> key.succeeded() && rows.getOrDefault(key.orderId(), 0L) == 0)
                .count();
        long executions = http.count("api/payments/executions") - executionsBefore;
        long firstSuccess = load.firstSuccessAfter(backAt);
        System.out.printf("outage under load (%s): %d requests on %d keys in %d s, answers %s; store down %.1f s,"
                        + " restart took %.1f s; payments made: %d orders (%d executions); paid twice: %d;"
                        + " paid without a claim: %d; a 2xx but no payment: %d; replays answered while the store was down: %d;"
                        + " first execution %.2f s after the store was back%n",
                store(), load.requests(), keys.size(), (System.nanoTime() - startedAt) / 1_000_000_000L, load.statuses(),
                (restartAt - stoppedAt) / 1e9, (backAt - restartAt) / 1e9, rows.size(), executions, paidTwice,
                paidWithoutClaim, succeededUnpaid, load.successesBetween(stoppedAt + GRACE.toNanos(), restartAt, true),
                firstSuccess < 0 ? -1.0 : (firstSuccess - backAt) / 1e9);

        assertThat(paidTwice).as("no order paid twice").isZero();
        assertThat(paidWithoutClaim).as("no order paid while its every request was refused").isZero();
        assertThat(succeededUnpaid).as("every 2xx stands for a payment").isZero();
        // A request in flight when the store stopped may still finish just after; a JPA provider may
        // hold a read until the database is back (EclipseLink retries it): nothing runs while it is
        // down. Replays may: a key this node saw completed is answered from its replay cache.
        assertThat(load.successesBetween(stoppedAt + GRACE.toNanos(), restartAt, false))
                .as("nothing is executed while the store is down").isZero();
        assertThat(firstSuccess).as("requests succeed again after the store is back").isNotEqualTo(-1L);
    }
}
