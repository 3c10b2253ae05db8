package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;

import jakarta.persistence.EntityManagerFactory;

import org.junit.jupiter.api.Test;

import dev.idempotency.jpa.testing.ResourceLocalTransactions;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.RecordState;

/**
 * The one-round-trip claim on the real PostgreSQL: it is chosen there and nowhere else, it writes
 * the row the entity would (state, owner, version, lease end, retention end), and meeting an
 * existing row neither fails nor spoils the transaction, so that the claim reads that row in the
 * same transaction.
 */
class InsertIfAbsentTest extends PostgreSqlRecords {

    private final ResourceLocalTransactions transactions = new ResourceLocalTransactions(factory);

    @Test
    void chosenOnPostgreSql() {
        InsertIfAbsent insert = new InsertIfAbsent();
        insert.resolve(transactions);
        assertThat(insert.available()).isTrue();
    }

    @Test
    void notChosenOnMariaDb() {
        EntityManagerFactory mariaDb = Databases.open("jdbc:mariadb://127.0.0.1:3306/test", "root", "insert-if-absent");
        try {
            InsertIfAbsent insert = new InsertIfAbsent();
            insert.resolve(new ResourceLocalTransactions(mariaDb));
            assertThat(insert.available()).isFalse();
        } finally {
            mariaDb.close();
        }
    }

    @Test
    void writesTheRowTheEntityWouldAndMeetsAnExistingOneQuietly() {
        LocalDateTime now = LocalDateTime.of(2026, 11, 29, 23, 0, 0, 123_456_000);
        String key = "insert-if-absent-" + System.nanoTime();

        boolean[] outcomes = transactions.inNewTransaction(em -> {
            boolean first = InsertIfAbsent.insert(em, key, "fp-1", "owner-1", now, now.plusSeconds(30),
                    now.plusSeconds(90));
            boolean second = InsertIfAbsent.insert(em, key, "fp-2", "owner-2", now, now.plusSeconds(30),
                    now.plusSeconds(90));
            // the transaction is still usable after the second insert met the row
            String owner = em.createQuery("SELECT r.owner FROM IdempotencyRecordEntity r WHERE r.key = :key", String.class)
                    .setParameter("key", key).getSingleResult();
            return new boolean[] {first, second, "owner-1".equals(owner)};
        });
        assertThat(outcomes).containsExactly(true, false, true);

        IdempotencyRecordEntity row = transactions.inNewTransaction(em -> em.find(IdempotencyRecordEntity.class, key));
        assertThat(row.state()).isEqualTo(JpaRecords.IN_PROGRESS);
        assertThat(row.fingerprint()).isEqualTo("fp-1");
        assertThat(row.version()).isEqualTo(1);
        assertThat(row.leaseEnd()).isEqualTo(now.plusSeconds(30).truncatedTo(ChronoUnit.MICROS));
        assertThat(row.expiresAt()).as("the claim's retention").isEqualTo(now.plusSeconds(90).truncatedTo(ChronoUnit.MICROS));
    }

    @Test
    void aClaimOfAKeyWithALiveRowGetsThatRecordAndAnExpiredOneIsTakenOver() {
        String key = "insert-if-absent-claims-" + System.nanoTime();
        ClaimResult first = records.claim(key, "fp", Duration.ofMillis(300), Duration.ofSeconds(30));
        assertThat(first).isInstanceOf(ClaimResult.Acquired.class);

        ClaimResult retry = records.claim(key, "fp", Duration.ofSeconds(30));
        assertThat(retry).isInstanceOfSatisfying(ClaimResult.Existing.class,
                existing -> assertThat(existing.record().state()).isEqualTo(RecordState.IN_PROGRESS));

        await(Duration.ofMillis(400));
        assertThat(records.claim(key, "fp", Duration.ofSeconds(30))).isInstanceOfSatisfying(ClaimResult.Acquired.class,
                takeover -> assertThat(takeover.takeover()).isTrue());
    }

    private static void await(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
