package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import dev.idempotency.jpa.testing.ResourceLocalTransactions;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;

/**
 * The purge on the real PostgreSQL: dead records go, in batches, live ones stay (an abandoned claim
 * until its retention ends), several purgers at once.
 */
class PurgeTest extends PostgreSqlRecords {


    static final StoredOutcome OUTCOME = StoredOutcome.of(201, Map.of("Location", List.of("/p/1")),
            "{\"id\":1}".getBytes(StandardCharsets.UTF_8));

    static String claim(String key, Duration lease) {
        return claim(key, lease, lease);
    }

    static String claim(String key, Duration lease, Duration retention) {
        return ((ClaimResult.Acquired) records.claim(key, "fp", lease, retention)).owner();
    }

    /** Makes a claim's row look as one written before claims recorded their retention. */
    static void withoutRetention(String key) {
        new ResourceLocalTransactions(factory).inNewTransaction(em -> em.createNativeQuery(
                "UPDATE idempotency_record SET expires_at = NULL WHERE record_key = ?1").setParameter(1, key).executeUpdate());
    }

    /**
     * The largest batch the setting allows, on PostgreSQL: the DELETE names the keys it selected, and
     * one statement may carry at most 65,535 bind values (the driver's limit), so a batch larger
     * than that must not be one statement (before, every run failed once the backlog reached the
     * batch size, and the table grew for good).
     */
    @Test
    void theLargestBatchAllowedPurgesInOneRun() {
        String prefix = "many-" + System.nanoTime() + "-";
        int rows = PurgeSettings.LARGEST_BATCH_SIZE;
        new ResourceLocalTransactions(factory).inNewTransaction(em -> em.createNativeQuery(
                "INSERT INTO idempotency_record (record_key, state, fingerprint, owner_token, version, lease_end, expires_at,"
                        + " outcome_status, created_at, updated_at) SELECT ?1 || n, 'COMPLETED', 'fp', 'o' || n, 2,"
                        + " (now() AT TIME ZONE 'UTC') - INTERVAL '2 days', (now() AT TIME ZONE 'UTC') - INTERVAL '1 day', 201,"
                        + " (now() AT TIME ZONE 'UTC') - INTERVAL '2 days', (now() AT TIME ZONE 'UTC') - INTERVAL '2 days'"
                        + " FROM generate_series(1, ?2) AS n")
                .setParameter(1, prefix).setParameter(2, rows).executeUpdate());

        int deleted = records.purge(rows, Duration.ofHours(1), 1);

        assertThat(deleted).as("every expired row, in one batch").isGreaterThanOrEqualTo(rows);
        Number left = new ResourceLocalTransactions(factory).inNewTransaction(em -> (Number) em.createNativeQuery(
                "SELECT count(*) FROM idempotency_record WHERE record_key LIKE ?1").setParameter(1, prefix + "%")
                .getSingleResult());
        assertThat(left.intValue()).isZero();
    }

    @Test
    void expiredAndAbandonedRecordsGoLiveOnesStay() throws Exception {
        String prefix = "purge-" + System.nanoTime() + "-";
        for (int i = 0; i < 25; i++) {
            String key = prefix + "expired-" + i;
            records.complete(key, claim(key, Duration.ofMinutes(1)), OUTCOME, Duration.ofSeconds(1));
        }
        claim(prefix + "abandoned", Duration.ofSeconds(1));
        claim(prefix + "running", Duration.ofMinutes(10));
        String liveKey = prefix + "completed";
        records.complete(liveKey, claim(liveKey, Duration.ofMinutes(1)), OUTCOME, Duration.ofHours(1));
        claim(prefix + "lease-over-recently", Duration.ofSeconds(1));
        claim(prefix + "lease-over-retention-not", Duration.ofSeconds(1), Duration.ofHours(1));
        claim(prefix + "legacy-abandoned", Duration.ofSeconds(1), Duration.ofHours(1));
        withoutRetention(prefix + "legacy-abandoned");
        String executedKey = prefix + "executed-expired";
        records.markExecuted(executedKey, claim(executedKey, Duration.ofMinutes(1)), Duration.ofSeconds(1), Duration.ofSeconds(1));
        String lostKey = prefix + "executed-outcome-lost";
        records.markExecuted(lostKey, claim(lostKey, Duration.ofMinutes(1)), Duration.ofSeconds(1), Duration.ofHours(1));

        Thread.sleep(2500);

        // two nodes purging at once, in batches of 10, abandoned = lease over for more than 1 s
        CompletableFuture<Integer> first = CompletableFuture.supplyAsync(() -> records.purge(10, Duration.ofSeconds(1), 100));
        CompletableFuture<Integer> second = CompletableFuture.supplyAsync(() -> records.purge(10, Duration.ofSeconds(1), 100));
        int deleted = first.get() + second.get();

        assertThat(deleted).as("25 expired + 2 claims past their retention + 1 claim without one abandoned"
                + " + 1 executed past its retention, each deleted once").isEqualTo(29);
        assertThat(records.find(prefix + "running")).as("a live in-progress claim").isPresent();
        assertThat(records.find(prefix + "lease-over-retention-not")).as("its lease over, its retention not: it still"
                + " binds the key").get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(records.find(prefix + "legacy-abandoned")).isEmpty();
        assertThat(records.find(liveKey)).as("a live completed record").isPresent();
        assertThat(records.find(lostKey)).as("an executed record whose outcome never came, kept for its retention")
                .get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.OUTCOME_LOST);
        assertThat(records.purge(10, Duration.ofSeconds(1), 100)).as("nothing left to purge").isZero();
    }

    @Test
    void aClaimWhoseLeaseEndedButNotItsRetentionIsKept() throws Exception {
        String key = "purge-recent-" + System.nanoTime();
        claim(key, Duration.ofSeconds(1), Duration.ofMinutes(1));
        Thread.sleep(1500);

        records.purge(100, Duration.ofMillis(1), 10);

        assertThat(records.claim(key, "fp-other", Duration.ofMinutes(1), Duration.ofMinutes(1)))
                .as("still there, bound to its request").isInstanceOfSatisfying(ClaimResult.Existing.class,
                        existing -> assertThat(existing.record().fingerprint()).isEqualTo("fp"));
        assertThat(records.claim(key, "fp", Duration.ofMinutes(1), Duration.ofMinutes(1)))
                .as("so the same request takes it over rather than inserting").isInstanceOf(ClaimResult.Acquired.class)
                .extracting(r -> ((ClaimResult.Acquired) r).takeover()).isEqualTo(true);
    }

    @Test
    void aClaimWrittenWithoutItsRetentionIsPurgedOnlyOnceAbandonedForLongEnough() throws Exception {
        String key = "purge-legacy-" + System.nanoTime();
        claim(key, Duration.ofSeconds(1), Duration.ofHours(1));
        withoutRetention(key);
        Thread.sleep(1500);

        records.purge(100, Duration.ofHours(1), 10);
        assertThat(rowCount(key)).as("its lease ended recently: not yet abandoned").isEqualTo(1);

        records.purge(100, Duration.ofMillis(100), 10);
        assertThat(rowCount(key)).as("abandoned for longer than abandonedAfter").isZero();
    }

    private static long rowCount(String key) {
        return new ResourceLocalTransactions(factory).inNewTransaction(em -> em.createQuery(
                "SELECT COUNT(r) FROM IdempotencyRecordEntity r WHERE r.key = :key", Long.class)
                .setParameter("key", key).getSingleResult());
    }
}
