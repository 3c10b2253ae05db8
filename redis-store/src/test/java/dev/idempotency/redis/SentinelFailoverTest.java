package dev.idempotency.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;

/**
 * Failovers that the Sentinels carry out: the store, given the Sentinels, follows the new master
 * without a restart, and a completion made before the failover is replayed from it. A graceful
 * {@code SENTINEL FAILOVER} leaves the old master up, taking writes until the Sentinels make it a
 * replica: {@code wait-replicas=1} fails those closed. A master killed is found again once the
 * Sentinels promoted its replica.
 */
class SentinelFailoverTest {

    private static final StoredOutcome RECEIPT = StoredOutcome.of(201, Map.of(), "paid".getBytes());

    private RedisSentinels group;
    private RedisConnection connection;
    private IdempotencyStore store;

    @BeforeEach
    void start() throws Exception {
        group = RedisSentinels.start("sentinel-failover", 7420);
    }

    private void connect(String... settings) {
        connection = new RedisConnection(RedisContractTest.settings(group.servers.get(0).settings(settings)));
        store = new RedisIdempotencyStore(connection);
    }

    @AfterEach
    void stop() {
        if (connection != null) {
            connection.close();
        }
        if (group != null) {
            group.close();
        }
    }

    private static String key() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    /** @return a key claimed and completed with {@link #RECEIPT} */
    private String paid() {
        String key = key();
        String owner = ((ClaimResult.Acquired) store.claim(key, "fp", Duration.ofMinutes(1), Duration.ofMinutes(10))).owner();
        assertThat(store.complete(key, owner, RECEIPT, Duration.ofMinutes(10))).isTrue();
        return key;
    }

    /**
     * Runs {@code call} until the store answers, at most 30 s after {@code since}: while Lettuce
     * reconnects, commands are rejected (fail closed, never queued). Prints how long it took and how
     * many calls failed meanwhile.
     */
    private <T> T untilAnswered(String what, long since, Supplier<T> call) throws InterruptedException {
        int failed = 0;
        String lastFailure = "";
        while (true) {
            try {
                T answer = call.get();
                System.out.println(what + ": answered " + Duration.ofNanos(System.nanoTime() - since).toMillis()
                        + " ms after the failover, after " + failed + " call(s) failed closed (the last: " + lastFailure + ")");
                return answer;
            } catch (IdempotencyStoreException e) {
                failed++;
                lastFailure = e.getMessage();
                assertThat(Duration.ofNanos(System.nanoTime() - since)).as(what + " fails only for a while: " + e)
                        .isLessThan(Duration.ofSeconds(30));
                Thread.sleep(100);
            }
        }
    }

    /** Claims fresh keys until one is acquired. */
    private void claimAgain(String failover, long since) throws InterruptedException {
        assertThat(untilAnswered(failover + ", a fresh claim", since,
                () -> store.claim(key(), "fp", Duration.ofMinutes(1), Duration.ofMinutes(10))))
                .isInstanceOf(ClaimResult.Acquired.class);
    }

    @Test
    void aGracefulFailoverIsFollowedAndWhatTheOldMasterStillTakesFailsClosed() throws Exception {
        connect("idempotency.redis.uri", group.uris(), "idempotency.redis.sentinel-master", RedisSentinels.MASTER,
                "idempotency.redis.wait-replicas", "1", "idempotency.redis.wait-timeout", "PT1S");
        String paid = paid();

        long failover = System.nanoTime();
        assertThat(group.sentinel(0, "SENTINEL", "FAILOVER", RedisSentinels.MASTER)).isEqualTo("OK");
        group.awaitMaster(group.servers.get(1).port, Duration.ofSeconds(20));
        claimAgain("SENTINEL FAILOVER", failover);
        // The failover ends when the Sentinels turn the old master into a replica and close its
        // clients' connections (CLIENT KILL): the store reconnects, rejecting commands meanwhile.
        group.servers.get(0).await("the old master turned into a replica", Duration.ofSeconds(20),
                () -> group.servers.get(0).cli("ROLE").startsWith("slave"));

        IdempotencyRecord replayed = untilAnswered("SENTINEL FAILOVER, a replay", failover, () -> store.find(paid).orElseThrow());
        assertThat(replayed.state()).as("completed before the failover, on the new master").isEqualTo(RecordState.COMPLETED);
        assertThat(replayed.outcome()).isEqualTo(RECEIPT);
        assertThat(group.servers.get(1).cli("ROLE")).startsWith("master");
    }

    @Test
    void aKilledMasterIsFoundAgainOnceItsReplicaIsPromoted() throws Exception {
        connect("idempotency.redis.uri", group.uris(), "idempotency.redis.sentinel-master", RedisSentinels.MASTER);
        String paid = paid();
        group.servers.get(0).await("the completion on the replica", Duration.ofSeconds(10),
                () -> "1".equals(group.servers.get(0).cli("WAIT", "1", "1000")));

        long killed = System.nanoTime();
        group.servers.get(0).kill();
        claimAgain("kill -9 of the master", killed);

        assertThat(group.masterPort()).as("the Sentinels promoted the replica").isEqualTo(group.servers.get(1).port);
        assertThat(untilAnswered("kill -9 of the master, a replay", killed, () -> store.find(paid).orElseThrow()).outcome())
                .as("replayed from the promoted replica").isEqualTo(RECEIPT);
    }
}
