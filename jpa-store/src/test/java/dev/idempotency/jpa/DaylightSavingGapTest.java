package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TimeZone;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import javax.sql.DataSource;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.idempotency.jpa.testing.ResourceLocalTransactions;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;

/**
 * A node whose JVM runs in a time zone with daylight saving ({@code America/New_York}), in the
 * hour its clocks skip in spring. The store keeps UTC wall times; EclipseLink 4 and Hibernate 6
 * bind and read a {@code LocalDateTime} through {@link java.sql.Timestamp}, whose fields are taken
 * in the JVM's zone, and a UTC wall time inside that zone's gap (02:30 on the night clocks jump
 * from 02:00 to 03:00) does not exist there: it comes out an hour later. Left alone, for that hour
 * each year the database's time as the node reads it, and every "now" it binds, run an hour ahead:
 * the node refuses its own completions and purges records that have not expired, and the keys run
 * again.
 *
 * <p>Records are written just before the gap with the JVM on UTC, as by the auto-commit statements
 * on PostgreSQL or by a node in another zone (exact wall times), and met inside the gap with the
 * JVM on New York time. The store's clock is moved to the next gap: by moving its readings of the
 * database's time (the binding of times), or, on MariaDB, by setting the session's time
 * ({@code SET timestamp}), which {@code UTC_TIMESTAMP()} answers (the reading itself too).
 */
class DaylightSavingGapTest {

    private static final String FINGERPRINT = "fp";
    private static final TimeZone ORIGINAL = TimeZone.getDefault();
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

    static List<Object[]> databases() {
        return List.of(
                new Object[] {"PostgreSQL, EclipseLink", "jdbc:postgresql://127.0.0.1:5432/test", "postgres", "postgresql.sql", "idempotency-test"},
                new Object[] {"PostgreSQL, Hibernate", "jdbc:postgresql://127.0.0.1:5432/test", "postgres", "postgresql.sql", "idempotency-test-hibernate"},
                new Object[] {"MariaDB, EclipseLink", "jdbc:mariadb://127.0.0.1:3306/test", "root", "mariadb.sql", "idempotency-test"},
                new Object[] {"MariaDB, Hibernate", "jdbc:mariadb://127.0.0.1:3306/test", "root", "mariadb.sql", "idempotency-test-hibernate"});
    }

    static List<Object[]> mariaDb() {
        return databases().subList(2, 4);
    }

    private EntityManagerFactory factory;

    @BeforeEach
    void utc() {
        TimeZone.setDefault(TimeZone.getTimeZone("UTC"));
    }

    @AfterEach
    void restore() {
        TimeZone.setDefault(ORIGINAL);
        if (factory != null) {
            factory.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void completionsMarksReleasesAndPurgesInsideTheGapJudgeByTheTrueTime(String name, String url, String user, String ddl, String unit)
            throws Exception {
        factory = fresh(url, user, ddl, unit);
        LocalDateTime gap = nextGap();
        JpaRecords before = new JpaRecords(new ResourceLocalTransactions(factory), movedTo(gap.minusSeconds(10)));
        ClaimResult.Acquired owned = (ClaimResult.Acquired) before.claim("owned", FINGERPRINT, Duration.ofMinutes(20));
        ClaimResult.Acquired marked = (ClaimResult.Acquired) before.claim("marked", FINGERPRINT, Duration.ofMinutes(20));
        ClaimResult.Acquired released = (ClaimResult.Acquired) before.claim("released", FINGERPRINT, Duration.ofMinutes(20));
        completeWith20MinutesOfRetention(before, "kept");

        TimeZone.setDefault(TimeZone.getTimeZone(NEW_YORK));
        JpaRecords inside = new JpaRecords(new ResourceLocalTransactions(factory), movedTo(gap.plusSeconds(10)));
        assertThat(inside.complete("owned", owned.owner(), outcome(), Duration.ofHours(24)))
                .as("the owner's lease has 19 minutes left: its completion is taken")
                .isTrue();
        assertThat(inside.markExecuted("marked", marked.owner(), Duration.ofMinutes(20), Duration.ofHours(24)))
                .as("the owner's mark of its work as executed is taken").isTrue();
        assertThat(inside.release("released", released.owner())).as("the owner's release is taken").isTrue();
        assertThat(inside.find("released")).as("the released key is free").isEmpty();
        survivesAPurge(inside, "kept");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mariaDb")
    void theDatabasesTimeInsideTheGapIsReadAsItIs(String name, String url, String user, String ddl, String unit)
            throws Exception {
        factory = fresh(url, user, ddl, unit);
        LocalDateTime gap = nextGap();
        JpaRecords before = new JpaRecords(new SessionTime(new ResourceLocalTransactions(factory), gap.minusSeconds(10)));
        completeWith20MinutesOfRetention(before, "kept");

        TimeZone.setDefault(TimeZone.getTimeZone(NEW_YORK));
        JpaRecords inside = new JpaRecords(new SessionTime(new ResourceLocalTransactions(factory), gap.plusSeconds(10)));
        survivesAPurge(inside, "kept");
    }

    private static void completeWith20MinutesOfRetention(JpaRecords node, String key) {
        ClaimResult.Acquired claim = (ClaimResult.Acquired) node.claim(key, FINGERPRINT, Duration.ofMinutes(1));
        assertThat(node.complete(key, claim.owner(), outcome(), Duration.ofMinutes(20))).isTrue();
    }

    private static void survivesAPurge(JpaRecords node, String key) {
        assertThat(node.purgeBatch(100, Duration.ofHours(1))).as("rows purged").isZero();
        assertThat(node.find(key)).as("a completed record with 19 minutes of retention left")
                .hasValueSatisfying(record -> assertThat(record.state()).isEqualTo(RecordState.COMPLETED));
    }

    /**
     * @return a factory on the recreated table, as a node of its own: EclipseLink would hand a
     *     factory of another test's session name that session, on whatever database it was opened
     */
    private static EntityManagerFactory fresh(String url, String user, String ddl, String unit) throws Exception {
        Databases.recreate(url, user, ddl);
        return Databases.open(url, user, "daylight-saving-" + UUID.randomUUID(), unit);
    }

    /**
     * @return moves the database's time, as the store reads it, to the UTC wall time given (the
     *     database runs on this machine, so its clock and this JVM's agree)
     */
    private static UnaryOperator<LocalDateTime> movedTo(LocalDateTime utc) {
        Duration shift = Duration.between(LocalDateTime.now(ZoneOffset.UTC), utc);
        return databaseTime -> databaseTime.plus(shift);
    }

    /** @return the wall time at which New York's clocks next jump forward (02:00 local, which does not exist) */
    private static LocalDateTime nextGap() {
        ZoneOffsetTransition transition = NEW_YORK.getRules().nextTransition(Instant.now());
        while (!transition.isGap()) {
            transition = NEW_YORK.getRules().nextTransition(transition.getInstant());
        }
        return transition.getDateTimeBefore();
    }

    private static StoredOutcome outcome() {
        return StoredOutcome.of(201, Map.of(), new byte[] {'o', 'k'});
    }

    /**
     * Transactions in which MariaDB's session time is the one given: {@code UTC_TIMESTAMP()} and
     * {@code NOW()} answer it, as if the database's own clock stood there.
     */
    private record SessionTime(ResourceLocalTransactions transactions, LocalDateTime utc) implements RecordTransactions {

        @Override
        public <T> T inNewTransaction(Function<EntityManager, T> work) {
            return transactions.inNewTransaction(at(work));
        }

        @Override
        public <T> T inCallerTransaction(Function<EntityManager, T> work) {
            return transactions.inCallerTransaction(at(work));
        }

        @Override
        public Optional<DataSource> autoCommitDataSource() {
            return Optional.empty();
        }

        private <T> Function<EntityManager, T> at(Function<EntityManager, T> work) {
            return em -> {
                em.createNativeQuery("SET timestamp = " + utc.toEpochSecond(ZoneOffset.UTC)).executeUpdate();
                return work.apply(em);
            };
        }
    }
}
