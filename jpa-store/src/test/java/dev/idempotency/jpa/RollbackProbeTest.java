package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.function.Function;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityTransaction;

import org.junit.jupiter.api.Test;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.RecordState;

/**
 * The store's check that its datasource undoes rolled-back transactions, on the real PostgreSQL:
 * passed by a real transaction, failed by one that commits whatever happens; the store then
 * still works, and the owner frees a mark that the rollback could not undo.
 */
class RollbackProbeTest extends PostgreSqlRecords {

    /** Like a datasource whose writes commit at once: the work's changes stay even when it throws. */
    static final class CommittingWhatever implements RecordTransactions {

        @Override
        public <T> T inNewTransaction(Function<EntityManager, T> work) {
            EntityManager em = factory.createEntityManager();
            EntityTransaction transaction = em.getTransaction();
            transaction.begin();
            try {
                return work.apply(em);
            } finally {
                transaction.commit();
                em.close();
            }
        }

        @Override
        public <T> T inCallerTransaction(Function<EntityManager, T> work) {
            return inNewTransaction(work);
        }
    }

    static long probeRowsLeft() {
        EntityManager em = factory.createEntityManager();
        try {
            return em.createQuery("SELECT COUNT(r) FROM IdempotencyRecordEntity r WHERE r.key LIKE 'rollback-probe-%'",
                    Long.class).getSingleResult();
        } finally {
            em.close();
        }
    }

    @Test
    void aTransactionalDatabasePassesAndNoProbeRowStays() {
        assertThat(records.rollsBack()).isTrue();
        assertThat(probeRowsLeft()).isZero();
    }

    @Test
    void onADatasourceThatCommitsWhateverHappensTheProbeFailsAndTheOwnerStillFreesItsMark() {
        JpaIdempotencyStore store = new JpaIdempotencyStore(new JpaRecords(new CommittingWhatever()));
        assertThat(store.joinsTransactions()).isFalse();
        assertThat(probeRowsLeft()).as("the surviving probe row is cleaned up").isZero();

        String key = "no-rollback-" + System.nanoTime();
        String owner = ((ClaimResult.Acquired) store.claim(key, "fp", Duration.ofMinutes(1))).owner();

        assertThat(store.markExecuted(key, owner, Duration.ofMinutes(1), Duration.ofHours(1))).isTrue();
        assertThat(store.find(key)).get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.EXECUTED);
        assertThat(store.release(key, owner)).as("the work's transaction rolled back: its owner frees the key").isTrue();
        assertThat(store.claim(key, "fp", Duration.ofMinutes(1))).isInstanceOf(ClaimResult.Acquired.class);
    }
}
