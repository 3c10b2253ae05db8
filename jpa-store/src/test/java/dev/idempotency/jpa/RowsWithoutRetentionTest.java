package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.idempotency.jpa.testing.ResourceLocalTransactions;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.RecordState;

/**
 * In-progress rows written before claims recorded their retention ({@code expires_at} NULL), as a
 * table upgraded in place holds them: they end with their lease, as they did.
 */
class RowsWithoutRetentionTest extends PostgreSqlRecords {

    private static String claimWithoutRetention(String key, Duration lease) {
        String owner = ((ClaimResult.Acquired) records.claim(key, "fp", lease, Duration.ofHours(1))).owner();
        new ResourceLocalTransactions(factory).inNewTransaction(em -> em.createNativeQuery(
                "UPDATE idempotency_record SET expires_at = NULL WHERE record_key = ?1").setParameter(1, key).executeUpdate());
        return owner;
    }

    @Test
    void withinItsLeaseItBindsTheKeyAndItsOwnerCompletesIt() {
        String key = "legacy-live-" + System.nanoTime();
        String owner = claimWithoutRetention(key, Duration.ofMinutes(1));

        assertThat(records.claim(key, "fp-other", Duration.ofMinutes(1), Duration.ofMinutes(1)))
                .isInstanceOfSatisfying(ClaimResult.Existing.class, existing -> {
                    assertThat(existing.record().state()).isEqualTo(RecordState.IN_PROGRESS);
                    assertThat(existing.record().fingerprint()).isEqualTo("fp");
                });
        assertThat(records.complete(key, owner, PurgeTest.OUTCOME, Duration.ofMinutes(1))).isTrue();
        assertThat(records.find(key)).get().extracting(r -> r.state()).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    void afterItsLeaseTheKeyIsFree() throws Exception {
        String key = "legacy-over-" + System.nanoTime();
        String owner = claimWithoutRetention(key, Duration.ofMillis(300));
        Thread.sleep(500);

        assertThat(records.find(key)).isEmpty();
        assertThat(records.markExecuted(key, owner, Duration.ofMinutes(1), Duration.ofMinutes(1))).isFalse();
        assertThat(records.claim(key, "fp-other", Duration.ofMinutes(1), Duration.ofMinutes(1)))
                .isInstanceOf(ClaimResult.Acquired.class);
        assertThat(records.release(key, owner)).as("the old owner lost it").isFalse();
    }
}
