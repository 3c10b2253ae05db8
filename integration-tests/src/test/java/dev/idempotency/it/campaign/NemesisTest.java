package dev.idempotency.it.campaign;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;

/** The nemesis's schedule, with faults that only note the time: the order of the first round, and what a background healing overlaps. */
class NemesisTest {

    /** Well over the nemesis's pause between two faults (1 to 3 s), so that the held fault comes while it heals. */
    private static final long HEAL_MS = 6000;

    @Test
    void aFaultHealedInTheBackgroundComesFirstEndsItsWindowAtTheKillAndIsAwaitedByOneOnTheWholeSystem() throws Exception {
        Map<String, Long> injectedAt = new ConcurrentHashMap<>();
        Map<String, Long> healedAt = new ConcurrentHashMap<>();
        Nemesis.Fault kill = new Nemesis.Fault("kill", Nemesis.Timing.HEALED_IN_BACKGROUND, random -> {
            injectedAt.put("kill", System.nanoTime());
            return () -> {
                Thread.sleep(HEAL_MS); // a restart
                healedAt.put("kill", System.nanoTime());
                return "restarted";
            };
        });
        Nemesis.Fault freeze = new Nemesis.Fault("freeze", Nemesis.Timing.ON_THE_WHOLE_SYSTEM, random -> {
            injectedAt.put("freeze", System.nanoTime());
            return () -> "thawed";
        });
        Nemesis.Fault held = Nemesis.fault("held", random -> {
            injectedAt.put("held", System.nanoTime());
            return () -> "healed";
        });
        Nemesis nemesis = new Nemesis(42, List.of(freeze, held, kill));

        Nemesis.await(nemesis.start(Duration.ZERO, Duration.ZERO), Duration.ofSeconds(30));

        assertThat(injectedAt.get("kill")).as("the background fault first").isLessThan(injectedAt.get("held"));
        assertThat(injectedAt.get("held")).as("a held fault does not wait for the background healing")
                .isLessThan(healedAt.get("kill"));
        assertThat(injectedAt.get("freeze")).as("the fault on the whole system last, after the healing")
                .isGreaterThan(healedAt.get("kill"));
        Nemesis.Injected killed = nemesis.injected().stream().filter(f -> f.kind().equals("kill")).findFirst().orElseThrow();
        assertThat(killed.endNanos()).as("its window ends as it was injected, not when healed")
                .isLessThan(healedAt.get("kill") - HEAL_MS / 2 * 1_000_000);
        assertThat(nemesis.counts()).containsOnly(Map.entry("freeze", 1L), Map.entry("held", 1L), Map.entry("kill", 1L));
    }
}
