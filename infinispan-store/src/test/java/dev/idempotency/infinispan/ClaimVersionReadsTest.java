package dev.idempotency.infinispan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.infinispan.client.hotrod.MetadataValue;
import org.infinispan.client.hotrod.impl.MetadataValueImpl;
import org.junit.jupiter.api.Test;

/** The early reads of fresh claims: taken once, dropped, failed, and bounded. */
class ClaimVersionReadsTest {

    private final AtomicLong now = new AtomicLong(TimeUnit.HOURS.toNanos(1));
    private final ClaimVersionReads reads = new ClaimVersionReads(now::get);

    @Test
    void aReadIsTakenOnceByItsOwner() {
        MetadataValue<StoredRecord> record = read(7);
        reads.start("owner", () -> CompletableFuture.completedFuture(record));

        assertThat(reads.take("another")).isNull();
        assertThat(reads.take("owner")).isSameAs(record);
        assertThat(reads.take("owner")).as("taken already").isNull();
        assertThat(reads.waiting()).isZero();
    }

    @Test
    void aFailedReadLeavesTheCompletionToReadAgain() {
        reads.start("owner", () -> CompletableFuture.failedFuture(new IllegalStateException("the server did not answer")));

        assertThat(reads.take("owner")).isNull();
    }

    @Test
    void aReadThatCannotBeSentLeavesTheClaimAsItIs() {
        reads.start("owner", () -> {
            throw new IllegalStateException("the client is closing");
        });

        assertThat(reads.take("owner")).isNull();
        assertThat(reads.waiting()).isZero();
    }

    @Test
    void aDroppedReadIsNotTaken() {
        reads.start("owner", () -> CompletableFuture.completedFuture(read(1)));
        reads.drop("owner");

        assertThat(reads.take("owner")).isNull();
        assertThat(reads.waiting()).isZero();
    }

    /**
     * Claims that never end on this node (a 5xx of an async endpoint leaves its claim to its lease)
     * must not grow the table: at its bound no read is started, and once the waiting reads are a
     * minute old they are dropped to make room.
     */
    @Test
    void theTableIsBoundedAndReadsNeverTakenAreDroppedOnceStale() {
        AtomicInteger sent = new AtomicInteger();
        for (int i = 0; i < ClaimVersionReads.MAX; i++) {
            reads.start("abandoned-" + i, () -> sentRead(sent));
        }

        reads.start("beyond", () -> sentRead(sent));
        assertThat(reads.waiting()).isEqualTo(ClaimVersionReads.MAX);
        assertThat(sent).as("no read sent beyond the bound").hasValue(ClaimVersionReads.MAX);
        assertThat(reads.take("beyond")).isNull();

        now.addAndGet(TimeUnit.SECONDS.toNanos(61));
        reads.start("later", () -> sentRead(sent));

        assertThat(reads.waiting()).isEqualTo(1);
        assertThat(reads.take("later")).isNotNull();
    }

    private static CompletableFuture<MetadataValue<StoredRecord>> sentRead(AtomicInteger sent) {
        sent.incrementAndGet();
        return CompletableFuture.completedFuture(read(1));
    }

    private static MetadataValue<StoredRecord> read(long version) {
        return new MetadataValueImpl<>(0, -1, 0, -1, version, StoredRecord.claimed("fp", "owner", 1_000));
    }
}
