package dev.idempotency.it.support;

import java.time.Duration;

/**
 * How long the load, outage, flood and failover tests run. Every build runs a short bounded pass,
 * so that the whole suite stays inside its time budget; {@code -Dit.long=true} runs them as long
 * as the figures in docs/guarantees.md and the store pages were measured:
 * {@code ./mvnw verify -Dit.long=true -Dskip.wildfly -Dskip.liberty -P '!payara7'}.
 */
public final class Campaign {

    /** Whether the long campaign runs. */
    public static final boolean LONG = Boolean.getBoolean("it.long");

    private Campaign() {
    }

    /**
     * @param shortPass the seconds of the pass every build runs
     * @param longPass the seconds of the long campaign
     * @return the one that runs
     */
    public static Duration seconds(long shortPass, long longPass) {
        return Duration.ofSeconds(LONG ? longPass : shortPass);
    }

    /**
     * @param shortPass the count of the pass every build runs
     * @param longPass the count of the long campaign
     * @return the one that runs
     */
    public static int count(int shortPass, int longPass) {
        return LONG ? longPass : shortPass;
    }
}
