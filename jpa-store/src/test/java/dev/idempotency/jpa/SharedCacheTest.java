package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import jakarta.persistence.EntityManagerFactory;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.jpa.testing.ResourceLocalTransactions;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;

/**
 * Two nodes (two EclipseLink sessions, each with its shared cache) on one PostgreSQL database,
 * in a persistence unit that caches every entity ({@code shared-cache-mode ALL}, which overrides
 * {@code @Cacheable(false)}). Node B changes a row node A has read: node A's claims and look-ups
 * must answer from the database, not from its cached copy (a {@code 409} for a completed key, an
 * executed row reported as lost after it completed).
 */
class SharedCacheTest {

    private static final String URL = "jdbc:postgresql://127.0.0.1:5432/test";
    private static final String UNIT = "idempotency-test-shared-cache";
    private static final Duration LEASE = Duration.ofSeconds(60);
    private static final Duration RETENTION = Duration.ofHours(1);
    private static final StoredOutcome OUTCOME = StoredOutcome.of(201, Map.of("Location", List.of("/orders/7")),
            "{\"id\":7}".getBytes(StandardCharsets.UTF_8));

    private EntityManagerFactory nodeA;
    private EntityManagerFactory nodeB;
    private JpaRecords a;
    private JpaRecords b;

    @BeforeEach
    void nodes() throws Exception {
        Databases.recreate(URL, "postgres", "postgresql.sql");
        nodeA = Databases.open(URL, "postgres", "shared-cache-a", UNIT);
        nodeB = Databases.open(URL, "postgres", "shared-cache-b", UNIT);
        a = new JpaRecords(new ResourceLocalTransactions(nodeA));
        b = new JpaRecords(new ResourceLocalTransactions(nodeB));
    }

    @AfterEach
    void close() {
        nodeA.close();
        nodeB.close();
    }

    @Test
    void aKeyCompletedOnAnotherNodeIsReplayedNotInProgress() {
        ClaimResult.Acquired owner = (ClaimResult.Acquired) b.claim("k", "fp", LEASE, RETENTION);
        assertThat(a.claim("k", "fp", LEASE, RETENTION)).as("node A reads the claim (and caches the row)")
                .isInstanceOfSatisfying(ClaimResult.Existing.class,
                        existing -> assertThat(existing.record().state()).isEqualTo(RecordState.IN_PROGRESS));
        assertThat(a.find("k")).get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.IN_PROGRESS);

        assertThat(b.complete("k", owner.owner(), OUTCOME, RETENTION)).isTrue();

        assertThat(a.find("k")).as("node A's look-up after node B completed the key")
                .get().satisfies(record -> {
                    assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
                    assertThat(record.outcome()).isEqualTo(OUTCOME);
                });
        assertThat(a.claim("k", "fp", LEASE, RETENTION)).as("node A's claim after node B completed the key")
                .isInstanceOfSatisfying(ClaimResult.Existing.class, existing -> {
                    assertThat(existing.record().state()).isEqualTo(RecordState.COMPLETED);
                    assertThat(existing.record().outcome()).isEqualTo(OUTCOME);
                });
    }

    @Test
    void anExecutedKeyCompletedOnAnotherNodeIsReplayedNotLost() throws Exception {
        ClaimResult.Acquired owner = (ClaimResult.Acquired) b.claim("k", "fp", LEASE, RETENTION);
        assertThat(b.markExecuted("k", owner.owner(), Duration.ofSeconds(1), RETENTION)).isTrue();
        assertThat(a.find("k")).as("node A reads the executed row (and caches it)")
                .get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.EXECUTED);

        assertThat(b.complete("k", owner.owner(), OUTCOME, RETENTION)).isTrue();
        Thread.sleep(1_500); // past the executed row's lease: a stale copy of it reads as lost

        assertThat(a.find("k")).as("node A's look-up after node B completed the key")
                .get().satisfies(record -> {
                    assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
                    assertThat(record.outcome()).isEqualTo(OUTCOME);
                });
        assertThat(a.claim("k", "fp", LEASE, RETENTION)).as("node A's claim after node B completed the key")
                .isInstanceOfSatisfying(ClaimResult.Existing.class, existing -> {
                    assertThat(existing.record().state()).isEqualTo(RecordState.COMPLETED);
                    assertThat(existing.record().outcome()).isEqualTo(OUTCOME);
                });
    }
}
