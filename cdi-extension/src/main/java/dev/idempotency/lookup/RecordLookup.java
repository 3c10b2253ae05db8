package dev.idempotency.lookup;

import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.idempotency.claim.ScopedKey;
import dev.idempotency.claim.TenantLookup;
import dev.idempotency.config.IdempotencyPolicy;
import dev.idempotency.config.TenantSource;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.RecordDetails;
import dev.idempotency.spi.RecordState;

/**
 * Answers support questions from the store: what it holds for a key, and the release of an
 * in-progress claim whose owner is gone.
 *
 * <p><b>When an owner counts as gone.</b> When its lease ran out, as the store's clock says: the
 * same rule by which a retry of the same request takes an abandoned claim over. The release is such a
 * takeover followed by the release of the claim taken, both owner-checked by the store, so it can
 * never remove a claim whose lease runs, work that committed ({@code EXECUTED}, {@code OUTCOME_LOST})
 * or a completed record before its ttl: the store refuses each of those to a claim. An owner that is
 * only slow, not gone, loses its claim as it would to a retry's takeover: its completion and its
 * executed-mark then fail, and its transaction rolls back.
 */
public final class RecordLookup {

    /** The support claim's own lease: if its release never comes (the store failed), the key is free again soon. */
    static final Duration RELEASE_LEASE = Duration.ofSeconds(1);

    /** The most endpoint names an unknown-endpoint answer lists. */
    private static final int NAMES_LISTED = 20;

    private final IdempotencyStore store;
    private final Map<String, IdempotencyPolicy> policies;
    /** Whether tenants are requests' host names, which requests carry in lower case. */
    private final boolean hostTenants;

    /**
     * @param store the selected store
     * @param policies the policy of each {@code @Idempotent} endpoint, by its identity
     */
    public RecordLookup(IdempotencyStore store, Map<String, IdempotencyPolicy> policies) {
        this(store, policies, null);
    }

    /**
     * @param store the selected store
     * @param policies every {@code @Idempotent} endpoint's policy, by its name
     * @param tenantSource where requests take their tenant from ({@code null}: as asked); a host
     *     tenant is looked for in lower case, as requests carry it
     */
    public RecordLookup(IdempotencyStore store, Map<String, IdempotencyPolicy> policies, TenantSource tenantSource) {
        this.store = store;
        this.policies = policies;
        this.hostTenants = tenantSource == TenantSource.HOST;
    }

    /** The record a question points at: its endpoint's policy and the scoped key. */
    public record Target(IdempotencyPolicy policy, String scopedKey) {
        /** @return the prefix of the scoped key that logs and events print */
        public String keyHash() {
            return ScopedKey.forLog(scopedKey);
        }
    }

    /**
     * @param query a support question
     * @return the record it points at
     * @throws BadSupportQuery when the endpoint is unknown, the key empty, or the tenant missing in a tenant scope
     */
    public Target target(SupportQuery query) {
        if (query.endpoint() == null || query.endpoint().isEmpty()) {
            throw new BadSupportQuery("name the endpoint (\"endpoint\"), as the library's events and logs do");
        }
        IdempotencyPolicy policy = policies.get(query.endpoint());
        if (policy == null) {
            List<String> known = policies.keySet().stream().limit(NAMES_LISTED).toList();
            throw new BadSupportQuery("no @Idempotent endpoint is named '" + query.endpoint() + "'; known: " + known
                    + (policies.size() > NAMES_LISTED ? " and " + (policies.size() - NAMES_LISTED) + " more" : ""));
        }
        if (query.key() == null || query.key().isEmpty()) {
            throw new BadSupportQuery("give the key (\"key\") as the library read it");
        }
        String tenant = null;
        if (policy.tenantScoped()) {
            if (query.tenant() == null || query.tenant().isEmpty()) {
                throw new BadSupportQuery("the endpoint's keys are scoped by tenant (scope " + policy.scope()
                        + "): give the tenant (\"tenant\")");
            }
            tenant = hostTenants ? hostName(query.tenant()) : query.tenant();
        }
        Principal caller = query.caller() == null ? null : new NamedCaller(query.caller());
        return new Target(policy, ScopedKey.of(policy, caller, tenant, query.key()));
    }

    /**
     * @return a host tenant as requests carry it ({@link TenantLookup#hostName}): the host name of a
     *     {@code Host} header, without its port
     */
    private static String hostName(String asked) {
        String host = asked;
        try {
            String parsed = java.net.URI.create("http://" + asked.trim() + "/").getHost();
            host = parsed == null ? asked : parsed;
        } catch (IllegalArgumentException notAHost) {
            // asked as it is
        }
        return TenantLookup.hostName(host);
    }

    /**
     * @param target the record asked about
     * @return what the store holds for it, or empty when nothing (never claimed, released, expired)
     * @throws dev.idempotency.spi.IdempotencyStoreException when the store cannot answer
     */
    public Optional<RecordDetails> inspect(Target target) {
        return store.inspect(target.scopedKey());
    }

    /** What a release did. */
    public sealed interface Release {
        /** The abandoned claim is gone: the next request with the key runs, whatever its payload. */
        record Released() implements Release {
        }

        /** There was no record (or it expired meanwhile). */
        record NoRecord() implements Release {
        }

        /**
         * The claim's lease still runs: its owner may be working.
         *
         * @param details the record, with when the lease ends where the store keeps it
         */
        record LeaseRunning(RecordDetails details) implements Release {
        }

        /**
         * The record is not a claim that may be released: work that committed or a completed record.
         *
         * @param state its state
         */
        record NotReleasable(RecordState state) implements Release {
        }
    }

    /**
     * Releases the in-progress claim of an owner that is gone (its lease ran out).
     *
     * @param target the record to release
     * @return what was done
     * @throws dev.idempotency.spi.IdempotencyStoreException when the store cannot answer (the
     *     record is then as it was, or held by this release's claim, whose record lapses after
     *     {@link #RELEASE_LEASE})
     */
    public Release release(Target target) {
        String key = target.scopedKey();
        Optional<RecordDetails> found = store.inspect(key);
        if (found.isEmpty()) {
            return new Release.NoRecord();
        }
        IdempotencyRecord record = found.get().record();
        if (record.state() != RecordState.IN_PROGRESS) {
            return new Release.NotReleasable(record.state());
        }
        // A takeover succeeds only for an in-progress claim whose lease ran out, with its fingerprint.
        // Its record is kept for the support claim's short lease only: if the release then fails,
        // the key is free again within RELEASE_LEASE, not bound for another ttl.
        ClaimResult claimed = store.claim(key, record.fingerprint(), RELEASE_LEASE, RELEASE_LEASE);
        if (claimed instanceof ClaimResult.Acquired acquired) {
            boolean released = store.release(key, acquired.owner());
            if (!acquired.takeover()) {
                return new Release.NoRecord(); // it had expired meanwhile: the key was free, and is again
            }
            return released ? new Release.Released() : new Release.NotReleasable(RecordState.IN_PROGRESS);
        }
        IdempotencyRecord existing = ((ClaimResult.Existing) claimed).record();
        if (existing.state() != RecordState.IN_PROGRESS) {
            return new Release.NotReleasable(existing.state());
        }
        // Its lease runs: the record looked at, or another request's that replaced it since (read again).
        Optional<RecordDetails> now = existing.fingerprint().equals(record.fingerprint()) ? found : store.inspect(key);
        return now.<Release>map(Release.LeaseRunning::new).orElseGet(Release.NoRecord::new);
    }

    /** A caller named in a support question; only its name counts in a scoped key. */
    private record NamedCaller(String name) implements Principal {
        @Override
        public String getName() {
            return name;
        }
    }
}
