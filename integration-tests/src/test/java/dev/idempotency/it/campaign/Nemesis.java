package dev.idempotency.it.campaign;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Injects faults while the clients work, one at a time, in a random order drawn from a seed (the
 * seed is printed, so that a failing run's schedule can be replayed with
 * {@code -Dcampaign.seed=...}): first every kind once, in a shuffled order, so that even a short
 * campaign meets each of them; then kinds drawn at random until the campaign's time is up. Each
 * fault heals itself before the next begins (a killed process is started again, a frozen one
 * thawed), so that the system is whole when the nemesis ends.
 */
final class Nemesis {

    /** A kind of fault: injects it, holds it for a random while, and heals it. */
    interface Fault {

        /** @return its name in the report, e.g. {@code kill -9 node} */
        String kind();

        /**
         * Injects the fault, holds it, heals it; returns once healed.
         *
         * @param random the nemesis's random source, for durations and targets
         * @return what was done, for the log (which node, for how long)
         * @throws Exception when it cannot be injected or healed
         */
        String run(Random random) throws Exception;
    }

    /**
     * One fault injected.
     *
     * @param kind its kind
     * @param detail what was done
     * @param startNanos when it began ({@link System#nanoTime()})
     * @param endNanos when it was healed
     */
    record Injected(String kind, String detail, long startNanos, long endNanos) {
    }

    private final long seed;
    private final List<Fault> faults;
    private final List<Injected> injected = new CopyOnWriteArrayList<>();
    private volatile boolean stopped;

    /**
     * @param seed seeds the order, the pauses and the durations
     * @param faults the kinds of fault to inject
     */
    Nemesis(long seed, List<Fault> faults) {
        this.seed = seed;
        this.faults = List.copyOf(faults);
    }

    /**
     * Starts injecting in the background: after {@code quiet}, every kind once, then more until
     * {@code length} has passed (a fault that began before then is still healed).
     *
     * @param quiet how long the clients work before the first fault
     * @param length how long faults may begin
     * @return completes once the last fault is healed
     */
    Future<?> start(Duration quiet, Duration length) {
        ExecutorService thread = Executors.newSingleThreadExecutor(r -> new Thread(r, "nemesis"));
        long end = System.nanoTime() + length.toNanos();
        Future<?> done = thread.submit(() -> {
            Random random = new Random(seed);
            List<Fault> firstRound = new ArrayList<>(faults);
            Collections.shuffle(firstRound, random);
            Thread.sleep(quiet.toMillis());
            for (int i = 0; i < firstRound.size() || !stopped && System.nanoTime() < end; i++) {
                Fault fault = i < firstRound.size() ? firstRound.get(i) : faults.get(random.nextInt(faults.size()));
                long start = System.nanoTime();
                String detail = fault.run(random);
                injected.add(new Injected(fault.kind(), detail, start, System.nanoTime()));
                System.out.printf("nemesis: %s (%s), %.1f s%n", fault.kind(), detail, (System.nanoTime() - start) / 1e9);
                Thread.sleep(1000 + random.nextInt(2000));
            }
            return null;
        });
        thread.shutdown();
        return done;
    }

    /** Begins no new fault once the first round is done (the one under way is still healed). */
    void stop() {
        stopped = true;
    }

    /**
     * Waits for the nemesis to end.
     *
     * @param running what {@link #start} returned
     * @param atMost a bound
     * @throws Exception when a fault could not be injected or healed
     */
    static void await(Future<?> running, Duration atMost) throws Exception {
        running.get(atMost.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** @return every fault injected, in order */
    List<Injected> injected() {
        return List.copyOf(injected);
    }

    /** @return how many faults of each kind were injected */
    Map<String, Long> counts() {
        return counts(injected);
    }

    /**
     * @param faults faults injected
     * @return how many of each kind
     */
    static Map<String, Long> counts(List<Injected> faults) {
        Map<String, Long> counts = new TreeMap<>();
        faults.forEach(fault -> counts.merge(fault.kind(), 1L, Long::sum));
        return counts;
    }

    /** What a fault does when it runs: inject, hold, heal; returns what was done, for the log. */
    interface Action {
        String run(Random random) throws Exception;
    }

    /**
     * @param kind the fault's name in the report
     * @param action what it does
     * @return the fault
     */
    static Fault fault(String kind, Action action) {
        return new Fault() {
            @Override
            public String kind() {
                return kind;
            }

            @Override
            public String run(Random random) throws Exception {
                return action.run(random);
            }
        };
    }
}
