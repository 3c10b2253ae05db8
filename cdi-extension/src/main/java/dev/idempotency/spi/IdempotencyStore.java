package dev.idempotency.spi;

import java.time.Duration;
import java.util.Optional;

/**
 * Where keys are claimed and outcomes kept. One contract, several stores: the in-memory default,
 * JPA, Infinispan. Every implementation passes the shared contract test
 * ({@code dev.idempotency.spi.contract.IdempotencyStoreContractTest} in the
 * {@code idempotency-cdi} test-jar).
 *
 * <p><b>Keys.</b> A key handed to a store is already scoped (principal, endpoint) and hashed:
 * at most 64 characters of base64url. Stores never see raw client keys.
 *
 * <p><b>Life of a record.</b> {@link #claim} creates it IN_PROGRESS for a lease; its owner then
 * either {@link #complete completes} it (COMPLETED, kept for the retention) or
 * {@link #release releases} it (gone, so a retry runs again). An IN_PROGRESS record whose lease
 * ran out (its owner crashed) can be claimed again; the new claim gets a new owner token, and the
 * old owner's complete and release then fail. Expiry is judged by the store's own clock
 * (Infinispan lifespan, the database's {@code CURRENT_TIMESTAMP}, the JVM's monotonic clock
 * for the in-memory store), never by comparing application nodes' clocks.
 *
 * <p><b>Atomicity.</b> Each operation is atomic with respect to the others on the same key, on
 * every node sharing the store: of many concurrent claims of a free key exactly one acquires it.
 *
 * <p><b>Failures.</b> When the store cannot answer (down, timeout) an operation throws
 * {@link IdempotencyStoreException}; callers fail closed on it.
 *
 * <p><b>Providing a store.</b> A store is a CDI bean of this type. The in-memory store is the
 * default bean; any other store is declared {@code @Alternative @Priority(n)} and so wins
 * without configuration. The store modules use priority {@link #STORE_MODULE_PRIORITY}; an
 * application's own store wins over them with a higher priority.
 */
public interface IdempotencyStore {

    /** The {@code @Priority} of the stores shipped in this project's store modules. */
    int STORE_MODULE_PRIORITY = 100;

    /**
     * Claims a key, or reports who holds it.
     *
     * @param key the scoped, hashed key
     * @param fingerprint the request's fingerprint, stored with the claim so that a retry with
     *     another request can be told apart
     * @param lease how long the claim stays in progress before another caller may take it over
     * @return {@link ClaimResult.Acquired} with a fresh owner token when the key was free (or its
     *     lease or retention had run out), else {@link ClaimResult.Existing} with the record
     * @throws IdempotencyStoreException when the store cannot answer
     */
    ClaimResult claim(String key, String fingerprint, Duration lease);

    /**
     * Completes a claim: stores the outcome and keeps the record for the retention.
     *
     * @param key the scoped, hashed key
     * @param owner the owner token returned by {@link #claim}
     * @param outcome what to replay to retries
     * @param retention how long to keep the completed record
     * @return {@code true} if the caller still owned the claim and the outcome is stored;
     *     {@code false} if it did not (lease ran out, taken over, released): nothing changed
     * @throws IdempotencyStoreException when the store cannot answer
     */
    boolean complete(String key, String owner, StoredOutcome outcome, Duration retention);

    /**
     * Releases a claim so that a retry runs again (the execution failed).
     *
     * @param key the scoped, hashed key
     * @param owner the owner token returned by {@link #claim}
     * @return {@code true} if the caller owned the in-progress claim and it is gone;
     *     {@code false} if it did not own it: nothing changed
     * @throws IdempotencyStoreException when the store cannot answer
     */
    boolean release(String key, String owner);

    /**
     * Reads a live record.
     *
     * @param key the scoped, hashed key
     * @return the record, or empty when there is none or it has expired
     * @throws IdempotencyStoreException when the store cannot answer
     */
    Optional<IdempotencyRecord> find(String key);
}
