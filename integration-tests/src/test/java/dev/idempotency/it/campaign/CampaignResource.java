package dev.idempotency.it.campaign;

import java.util.List;

/**
 * A server (or a cluster of them) that stores under a campaign run on: a PostgreSQL, a Redis, an
 * Infinispan cluster. Stores may share one (the JPA and the tiered store the same PostgreSQL), so
 * that its faults are injected once and meet every store on it.
 */
interface CampaignResource extends AutoCloseable {

    /** @return the faults the nemesis may inject into it */
    List<Nemesis.Fault> faults();
}
