package dev.idempotency.it.overload;

import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * Holds callers until as many as the pool has connections are waiting, then lets them all on at
 * once: their transactions then commit together, each still holding its connection.
 */
@ApplicationScoped
public class CommitTogether {

    private final CyclicBarrier callers = new CyclicBarrier(SmallPool.SIZE);

    /** Waits for the others, up to 20 s; past that the caller goes on (a broken round). */
    public void await() throws InterruptedException {
        try {
            callers.await(20, TimeUnit.SECONDS);
        } catch (BrokenBarrierException | TimeoutException e) {
            callers.reset();
        }
    }
}
