package dev.idempotency.jaxrs.internal;

import dev.idempotency.claim.EventPublisher;
import dev.idempotency.claim.InProgressWaits;
import dev.idempotency.claim.ReleaseRetries;
import dev.idempotency.claim.TenantLookup;
import dev.idempotency.config.LibrarySettings;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.store.ReplayCache;
import dev.idempotency.tokens.TokenRegistry;

/**
 * What the HTTP side of the contract works with, resolved once when the application starts (the
 * feature takes it from the CDI runtime; a test builds one by hand).
 *
 * @param store the selected store
 * @param settings the library settings
 * @param replayCache completed records kept for the next retries
 * @param events where outcomes are reported
 * @param tokens the server-issued tokens
 * @param claims where an admitted request's claim travels
 * @param tenants where the tenant of a tenant-scoped request comes from
 * @param waits where duplicates of a request in flight wait for its outcome
 * @param retries where a release that the store failed is tried again
 */
public record HttpServices(IdempotencyStore store, LibrarySettings settings, ReplayCache replayCache,
        EventPublisher events, TokenRegistry tokens, AdmittedClaims claims, TenantLookup tenants,
        InProgressWaits waits, ReleaseRetries retries) {
}
