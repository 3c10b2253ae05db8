package dev.idempotency.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.TimeZone;

import jakarta.persistence.EntityManagerFactory;

import org.junit.jupiter.api.Test;

import dev.idempotency.jpa.testing.ResourceLocalTransactions;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.RecordState;

/**
 * Two nodes whose JVMs run 26 hours apart (UTC+14 and UTC-12) share one database: leases and
 * expiry mean the same to both, because the store judges them by the database's clock in UTC.
 * JDBC drivers (PostgreSQL's among them) set each session's time zone from the JVM's, so a
 * store reading {@code LOCALTIMESTAMP} fails this test: the eastern node takes over a live
 * claim of the western one, and the western node never sees an eastern lease end.
 */
class NodeTimeZonesTest {

    private static final String FINGERPRINT = "fp";

    @Test
    void postgreSqlNodesInZones26HoursApartAgreeOnLeases() throws Exception {
        nodesAgree("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "postgresql.sql");
    }

    @Test
    void mariaDbNodesInZones26HoursApartAgreeOnLeases() throws Exception {
        nodesAgree("jdbc:mariadb://127.0.0.1:3306/test", "root", "mariadb.sql");
    }

    private static void nodesAgree(String url, String user, String ddl) throws Exception {
        TimeZone original = TimeZone.getDefault();
        EntityManagerFactory eastFactory = null;
        EntityManagerFactory westFactory = null;
        try {
            // each node's connections are opened while the JVM is in that node's zone
            TimeZone.setDefault(TimeZone.getTimeZone("Pacific/Kiritimati"));
            eastFactory = Databases.fresh(url, user, ddl);
            JpaRecords east = new JpaRecords(new ResourceLocalTransactions(eastFactory));
            assertThat(east.claim("warm-east", FINGERPRINT, Duration.ofSeconds(1))).isInstanceOf(ClaimResult.Acquired.class);
            TimeZone.setDefault(TimeZone.getTimeZone("Etc/GMT+12"));
            westFactory = Databases.open(url, user, "west");
            JpaRecords west = new JpaRecords(new ResourceLocalTransactions(westFactory));
            assertThat(west.claim("warm-west", FINGERPRINT, Duration.ofSeconds(1))).isInstanceOf(ClaimResult.Acquired.class);

            assertThat(west.claim("west-first", FINGERPRINT, Duration.ofSeconds(30))).isInstanceOf(ClaimResult.Acquired.class);
            assertThat(east.claim("west-first", FINGERPRINT, Duration.ofSeconds(30)))
                    .as("the eastern node sees the western node's live claim, it does not take it over")
                    .isInstanceOfSatisfying(ClaimResult.Existing.class,
                            existing -> assertThat(existing.record().state()).isEqualTo(RecordState.IN_PROGRESS));

            assertThat(east.claim("east-first", FINGERPRINT, Duration.ofSeconds(2), Duration.ofSeconds(60)))
                    .isInstanceOf(ClaimResult.Acquired.class);
            assertThat(west.claim("east-first", FINGERPRINT, Duration.ofSeconds(30))).isInstanceOf(ClaimResult.Existing.class);
            Thread.sleep(2_500);
            assertThat(west.claim("east-first", FINGERPRINT, Duration.ofSeconds(30)))
                    .as("the eastern node's 2 s lease ended 2 s later for the western node too, not 26 hours later")
                    .isInstanceOfSatisfying(ClaimResult.Acquired.class, taken -> assertThat(taken.takeover()).isTrue());
        } finally {
            TimeZone.setDefault(original);
            if (eastFactory != null) {
                eastFactory.close();
            }
            if (westFactory != null) {
                westFactory.close();
            }
        }
    }
}
