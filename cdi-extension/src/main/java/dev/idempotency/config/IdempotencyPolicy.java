package dev.idempotency.config;

import java.time.Duration;

import dev.idempotency.AnonymousCallers;
import dev.idempotency.IdempotencyScope;
import dev.idempotency.InProgressDuplicates;

/**
 * The resolved, validated settings of one {@code @Idempotent} method: annotation values with
 * MicroProfile Config overrides applied. Built once at deployment.
 *
 * @param endpoint the method's identity ({@link EndpointIdentity}: its explicit name, or
 *     {@code fqcn#method(erased.Param)}), used to scope keys, in logs and in events
 * @param ttl retention of completed outcomes
 * @param lease lifetime of an in-progress claim
 * @param required whether a key must be sent
 * @param scope who shares the key space
 * @param pinServerErrors whether 5xx answers are stored
 * @param failOpen whether to run unprotected when the store fails
 * @param fingerprintArguments whether the arguments of a non-HTTP method are fingerprinted (those
 *     that are not the key, and a key whose text two values may share)
 * @param serverIssuedKeys whether keys must be tokens this application issued
 * @param sharedName whether the endpoint's explicit name is shared with other methods on purpose
 * @param anonymous whether unauthenticated callers run or are refused
 * @param keySource where an HTTP request's key comes from ({@link KeySource#DEFAULT} for a non-HTTP method)
 * @param fingerprint what an HTTP request's fingerprint covers ({@link FingerprintRule#DEFAULT} for a
 *     non-HTTP method)
 * @param inProgress what a duplicate gets while the first request with its key runs
 * @param maxWait with {@link InProgressDuplicates#WAIT}, the longest a duplicate waits (at most the
 *     lease); {@link Duration#ZERO} with {@link InProgressDuplicates#CONFLICT}
 */
public record IdempotencyPolicy(String endpoint, Duration ttl, Duration lease, boolean required,
        IdempotencyScope scope, boolean pinServerErrors, boolean failOpen, boolean fingerprintArguments,
        boolean serverIssuedKeys, boolean sharedName, AnonymousCallers anonymous, KeySource keySource,
        FingerprintRule fingerprint, InProgressDuplicates inProgress, Duration maxWait) {

    /** The wait of a duplicate where {@code maxWait} is not set, unless the lease is shorter. */
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(5);

    /** @return whether duplicates in flight wait for the first outcome instead of a {@code 409} */
    public boolean waitsForInProgress() {
        return inProgress == InProgressDuplicates.WAIT;
    }

    /** @return whether keys are scoped by tenant ({@code TENANT}, {@code TENANT_PRINCIPAL}) */
    public boolean tenantScoped() {
        return scope == IdempotencyScope.TENANT || scope == IdempotencyScope.TENANT_PRINCIPAL;
    }

    /** @return whether an anonymous caller is refused before anything runs */
    public boolean rejectsAnonymous() {
        return anonymous == AnonymousCallers.REJECT;
    }
}
