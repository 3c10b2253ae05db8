package dev.idempotency.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class ExpiryIndexTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void aTicketComesDueOnlyAfterItsBucketEnded() {
        ExpiryIndex index = new ExpiryIndex(0);
        ExpiryIndex.Ticket ticket = new ExpiryIndex.Ticket("k");
        index.file(ticket, 2 * SECOND + 5);
        List<ExpiryIndex.Ticket> due = new ArrayList<>();

        index.takeDue(2 * SECOND + 10, due::add);
        index.takeDue(3 * SECOND - 1, due::add);
        assertThat(due).as("its second has not ended").isEmpty();

        index.takeDue(3 * SECOND, due::add);
        assertThat(due).containsExactly(ticket);
        assertThat(index.filed()).isZero();
    }

    @Test
    void noTicketIsLostWhenFiledIntoABucketASweepIsTaking() throws Exception {
        ExpiryIndex index = new ExpiryIndex(0);
        AtomicLong clock = new AtomicLong(SECOND);
        Set<ExpiryIndex.Ticket> seen = ConcurrentHashMap.newKeySet();
        Set<ExpiryIndex.Ticket> filed = ConcurrentHashMap.newKeySet();
        AtomicBoolean writing = new AtomicBoolean(true);
        ExecutorService pool = Executors.newFixedThreadPool(5);
        try {
            Future<?> sweeper = pool.submit(() -> {
                while (writing.get()) {
                    index.takeDue(clock.addAndGet(SECOND / 100), seen::add);
                }
            });
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                writers.add(pool.submit(() -> {
                    for (int i = 0; i < 100_000; i++) {
                        ExpiryIndex.Ticket ticket = new ExpiryIndex.Ticket("k" + i);
                        filed.add(ticket);
                        // due in the bucket the sweep is at, the one before or the one after it
                        index.file(ticket, clock.get() + (i % 3 - 1) * SECOND);
                    }
                }));
            }
            for (Future<?> writer : writers) {
                writer.get();
            }
            writing.set(false);
            sweeper.get();
        } finally {
            pool.shutdownNow();
        }
        index.takeDue(clock.get() + 10 * SECOND, seen::add);

        assertThat(filed).hasSize(400_000);
        assertThat(seen).as("every ticket filed came due").hasSize(400_000);
        assertThat(index.filed()).isZero();
    }
}
