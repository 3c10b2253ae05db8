package dev.idempotency.it.campaign;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
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
 * fault heals before the next begins (a killed process is started again, a frozen one thawed),
 * so that the system is whole when the nemesis ends; but a fault whose healing takes long (a
 * node started again, about a minute under load on two cores) heals in the background while the
 * next faults come, one such at a time ({@link Timing}).
 */
final class Nemesis {

    /**
     * A kind of fault.
     *
     * @param kind its name in the report, e.g. {@code kill -9 node}
     * @param timing how it is scheduled against a healing under way in the background
     * @param action injects it, and says how it heals
     */
    record Fault(String kind, Timing timing, Action action) {
    }

    /** How a fault is scheduled; the first round runs them in this order. */
    enum Timing {
        /**
         * Healed in the background while the next faults come (one such healing at a time: the
         * next such fault waits for it, and so does the end). First in the first round, so that
         * its long healing overlaps the others. What it breaks it breaks as it is injected (the
         * requests in flight die with a killed node), so its {@link Injected} ends there.
         */
        HEALED_IN_BACKGROUND,
        /** Healed before the next fault begins; any time, also while a background healing runs. */
        HELD,
        /**
         * Waits for a healing under way in the background before it is injected, so that it meets
         * the whole system (a node frozen while the other is still starting would leave no node to
         * take its claims over); last in the first round, by when that healing is likely done.
         */
        ON_THE_WHOLE_SYSTEM
    }

    /**
     * @param kind its name in the report
     * @param action injects it, and says how it heals
     * @return a fault healed before the next begins ({@link Timing#HELD})
     */
    static Fault fault(String kind, Action action) {
        return new Fault(kind, Timing.HELD, action);
    }

    /** Injects a fault and returns how it heals. */
    interface Action {
        /**
         * @param random the nemesis's random source, for durations and targets
         * @return its healing: holds the fault for its while, mends it, and returns what was done
         * @throws Exception when it cannot be injected
         */
        Heal inject(Random random) throws Exception;
    }

    /** Holds an injected fault for its while, then mends it. */
    interface Heal {
        /**
         * @return what was done, for the log (which node, for how long)
         * @throws Exception when it cannot be healed
         */
        String run() throws Exception;
    }

    /**
     * One fault injected.
     *
     * @param kind its kind
     * @param detail what was done
     * @param startNanos when it began ({@link System#nanoTime()})
     * @param endNanos when it was healed; for a fault healed in the background, when it was
     *     injected
     */
    record Injected(String kind, String detail, long startNanos, long endNanos) {

        /**
         * @param from the start of an interval ({@link System#nanoTime()})
         * @param to its end
         * @param margin how long after its healing the fault still counts
         * @return whether the fault, or the margin after it, overlaps the interval
         */
        boolean overlaps(long from, long to, Duration margin) {
            return to >= startNanos && from <= endNanos + margin.toNanos();
        }
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
        ExecutorService healer = Executors.newSingleThreadExecutor(r -> new Thread(r, "nemesis-healer"));
        long end = System.nanoTime() + length.toNanos();
        Future<?> done = thread.submit(() -> {
            Random random = new Random(seed);
            List<Fault> firstRound = new ArrayList<>(faults);
            Collections.shuffle(firstRound, random);
            firstRound.sort(Comparator.comparing(Fault::timing)); // stable: shuffled within each timing
            Thread.sleep(quiet.toMillis());
            Future<?> healing = CompletableFuture.completedFuture(null);
            Throwable failed = null;
            try {
                for (int i = 0; i < firstRound.size() || !stopped && System.nanoTime() < end; i++) {
                    Fault fault = i < firstRound.size() ? firstRound.get(i) : faults.get(random.nextInt(faults.size()));
                    if (fault.timing() != Timing.HELD || healing.isDone()) {
                        healing.get(); // waits for it, or throws at once if it failed
                    }
                    long start = System.nanoTime();
                    Heal heal = fault.action().inject(random);
                    long injected = System.nanoTime();
                    if (fault.timing() == Timing.HEALED_IN_BACKGROUND) {
                        healing = healer.submit(() -> healed(fault, heal, start, injected));
                    } else {
                        healed(fault, heal, start, injected);
                    }
                    Thread.sleep(1000 + random.nextInt(2000));
                }
            } catch (Exception | Error e) {
                failed = e;
                throw e;
            } finally {
                try {
                    healing.get(); // what it broke is healed before the nemesis ends, whatever failed
                } catch (Exception e) {
                    if (failed == null) {
                        throw e;
                    }
                    failed.addSuppressed(e);
                } finally {
                    healer.shutdown();
                }
            }
            return null;
        });
        thread.shutdown();
        return done;
    }

    /** Heals a fault and records it: until it healed, or for one healed in the background until it was injected. */
    private Void healed(Fault fault, Heal heal, long start, long injectedNanos) throws Exception {
        String detail = heal.run();
        long healed = System.nanoTime();
        long end = fault.timing() == Timing.HEALED_IN_BACKGROUND ? injectedNanos : healed;
        injected.add(new Injected(fault.kind(), detail, start, end));
        System.out.printf("nemesis: %s (%s), %.1f s%n", fault.kind(), detail, (healed - start) / 1e9);
        return null;
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

    /** @return every fault injected, in the order they healed */
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

    /** A step of a fault: a kill, a signal, a restart. */
    interface Step {
        void run() throws Exception;
    }

    /**
     * Holds a fault for a while, then heals it, even when interrupted meanwhile.
     *
     * @param holdMs how long
     * @param heal mends it
     * @throws Exception when it cannot be healed, or the wait was interrupted
     */
    static void hold(long holdMs, Step heal) throws Exception {
        try {
            Thread.sleep(holdMs);
        } finally {
            heal.run();
        }
    }

    /**
     * A fault made of two steps with a random hold between them, healed before the next fault.
     *
     * @param kind its name
     * @param minMs the shortest hold
     * @param maxMs the longest
     * @param inject breaks
     * @param heal mends
     * @return the fault
     */
    static Fault held(String kind, long minMs, long maxMs, Step inject, Step heal) {
        return fault(kind, random -> {
            long holdMs = minMs + (long) (random.nextDouble() * (maxMs - minMs));
            inject.run();
            return () -> {
                hold(holdMs, heal);
                return "held " + holdMs + " ms";
            };
        });
    }
}
