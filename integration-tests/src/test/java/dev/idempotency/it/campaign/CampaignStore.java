package dev.idempotency.it.campaign;

import java.util.List;
import java.util.Set;

import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * A store under a fault campaign: the sample app on it (one deployment of its own on every node),
 * the faults it adds to the nemesis, the payments database the checker reads, and the windows its
 * page in docs/stores admits.
 */
interface CampaignStore extends AutoCloseable {

    /** @return its name in the report */
    String name();

    /** @return the context root of its deployment, also the start of its order ids */
    String contextRoot();

    /**
     * @param config the application's MicroProfile Config
     * @return the sample app on this store, named after {@link #contextRoot()}
     */
    WebArchive app(String config);

    /** @return its faults (kills, pauses of its servers) */
    List<Nemesis.Fault> faults();

    /** @return the rules it may break, as its page in docs/stores says (none, ideally) */
    Set<HistoryChecker.Rule> admittedWindows();

    /** @return the kinds of {@link #faults()} that kill the payments' database, if any */
    default Set<String> databaseCrashes() {
        return Set.of();
    }

    /** @return the JDBC URL of its payments database */
    String paymentsDatabase();

    /**
     * A fault made of two steps with a random hold between them.
     *
     * @param kind its name
     * @param minMs the shortest hold
     * @param maxMs the longest
     * @param inject breaks
     * @param heal mends
     * @return the fault
     */
    static Nemesis.Fault fault(String kind, long minMs, long maxMs, Step inject, Step heal) {
        return Nemesis.fault(kind, random -> {
            long holdMs = minMs + (long) (random.nextDouble() * (maxMs - minMs));
            inject.run();
            try {
                Thread.sleep(holdMs);
            } finally {
                heal.run();
            }
            return "held " + holdMs + " ms";
        });
    }

    /** A step of a fault. */
    interface Step {
        void run() throws Exception;
    }
}
