package dev.idempotency.spi;

import java.time.Duration;
import java.util.Optional;

/**
 * Where keys are claimed and outcomes kept. One contract, several stores: the in-memory default,
 * JPA, Infinispan, Redis, and the tiered store (Infinispan or Redis in front of JPA). Every implementation passes the shared contract test
 * ({@code dev.idempotency.spi.contract.IdempotencyStoreContractTest} in the
 * {@code idempotency-cdi} test-jar).
 *
 * <p><b>Keys.</b> A key handed to a store is already scoped (principal, endpoint) and hashed:
 * at most 64 characters of base64url. Stores never see raw client keys.
 *
 * <p><b>Life of a record.</b> {@link #claim} creates it IN_PROGRESS for a lease; its owner then
 * either {@link #complete completes} it (COMPLETED, kept for the retention) or
 * {@link #release releases} it (gone, so a retry runs again). An IN_PROGRESS record whose lease
 * ran out (its owner crashed, or is slow) can be taken over by a claim with the same
 * fingerprint, never by another request; the new claim gets a new owner token, and the old
 * owner's complete, mark and release then fail. Within the record's retention only a takeover
 * makes an owner lose its claim: the owner token and the record's version decide, not the lease,
 * so a slow owner that nobody took over still completes. Once the retention ends (the claim's
 * {@code retention}, at least its lease) the record is gone, whatever its state: the key is free
 * for any request, and the old owner's calls fail.
 *
 * <p><b>The effect committed, the outcome not yet stored.</b> An HTTP resource method's
 * transaction commits before its response is serialised. So that a node stopping in between
 * cannot lead to a second execution, the owner calls {@link #markExecuted} inside the business
 * transaction: the record becomes EXECUTED together with the business rows, is never claimed
 * again, and {@link #complete} stores the response after the commit. If the outcome never comes,
 * the store reports the record as OUTCOME_LOST once the lease given to {@code markExecuted} ran
 * out, until its retention ends. Expiry is judged by the store's own clock
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
     * <p>The claim's record outlives its lease: until the retention ends, the key stays bound to
     * this fingerprint. After the lease, a claim with the <em>same</em> fingerprint takes an
     * abandoned claim over ({@link ClaimResult.Acquired#takeover()}); a claim with another
     * fingerprint finds the record ({@link ClaimResult.Existing}, in progress, with the first
     * fingerprint) and is refused as a reused key, as it would be once the work completed. Until a
     * takeover, and until the retention ends, the owner keeps its claim: its {@link #complete},
     * {@link #markExecuted} and {@link #release} succeed after the lease too.
     *
     * @param key the scoped, hashed key
     * @param fingerprint the request's fingerprint, stored with the claim so that a retry with
     *     another request can be told apart
     * @param lease how long the claim stays in progress before a caller with the same fingerprint
     *     may take it over
     * @param retention how long the record of the claim is kept if it is never completed (at
     *     least the lease; the library passes the endpoint's ttl): then the key is free again
     * @return {@link ClaimResult.Acquired} with a fresh owner token when the key was free (or its
     *     retention had run out, or its lease ran out and the fingerprint is the same), else
     *     {@link ClaimResult.Existing} with the record
     * @throws IdempotencyStoreException when the store cannot answer
     */
    ClaimResult claim(String key, String fingerprint, Duration lease, Duration retention);

    /**
     * Claims a key whose record is kept for the lease only: {@code claim(key, fingerprint, lease, lease)}.
     *
     * @param key the scoped, hashed key
     * @param fingerprint the request's fingerprint
     * @param lease the lease, and the record's retention
     * @return see {@link #claim(String, String, Duration, Duration)}
     * @throws IdempotencyStoreException when the store cannot answer
     */
    default ClaimResult claim(String key, String fingerprint, Duration lease) {
        return claim(key, fingerprint, lease, lease);
    }

    /**
     * Completes a claim: stores the outcome and keeps the record for the retention.
     *
     * @param key the scoped, hashed key
     * @param owner the owner token returned by {@link #claim}
     * @param outcome what to replay to retries
     * @param retention how long to keep the completed record
     * @return {@code true} if the caller still owned the claim (in progress, within its lease or
     *     after it while nobody took it over, or {@link #markExecuted executed}) and the outcome is
     *     stored; {@code false} if it did not (taken over, released, retention over): nothing changed
     * @throws IdempotencyStoreException when the store cannot answer
     */
    boolean complete(String key, String owner, StoredOutcome outcome, Duration retention);

    /**
     * Records that the work under a claim committed, before its outcome is known. Called inside
     * the caller's transaction, when there is one: a store that can join it (JPA) makes the mark
     * and the business rows commit or roll back together; a store that cannot records it at once,
     * which still closes the window but for the commit itself (if the transaction then rolls
     * back, the owner {@link #release releases} the executed record). From then on the key is
     * never claimed again, and {@link #complete} stores the outcome whatever the lease.
     *
     * <p>The default implementation records nothing and returns {@code true}: a store written
     * before this method existed keeps its old behaviour (the window between the commit and
     * {@link #complete} stays open; a retry in it may run again once the lease ran out).
     *
     * <p>A mark repeated by the owner of the record it marked executed answers {@code true} and
     * changes nothing in the record (its outcome stays due by the first mark's lease; a store may
     * write it again, as a store that waits for replicas must, so that the repeat is on them): when
     * a store outside the caller's transaction throws on a mark, the library asks once more, since
     * the first may have been applied with only its answer lost, and the work may then commit. A
     * store whose client sends a write again by itself must likewise count its own first attempt.
     *
     * @param key the scoped, hashed key
     * @param owner the owner token returned by {@link #claim}
     * @param lease how long to wait for the outcome before reporting it lost
     * @param retention how long to keep the record if the outcome never comes
     * @return {@code true} if the caller owned the in-progress claim (within its lease, or after it
     *     while nobody took it over) and it is now EXECUTED, or it had marked it already;
     *     {@code false} if it did not (taken over, released, completed): nothing changed, and the
     *     caller must roll its work back
     * @throws IdempotencyStoreException when the store cannot answer
     */
    default boolean markExecuted(String key, String owner, Duration lease, Duration retention) {
        return true;
    }

    /**
     * Releases a claim so that a retry runs again (the execution failed).
     *
     * <p>The owner also releases a record it {@link #markExecuted marked executed} when the
     * transaction around the work rolled back after all; it never does so once that transaction
     * committed.
     *
     * <p>When a release throws, the library calls it again in the background, from a thread of its
     * own (no request, no CDI context, no transaction), with growing pauses, until the store
     * answers or the record's retention ran out: for stores that do not
     * {@link #joinsCallerTransaction join the caller's transaction} only, whose marks would
     * otherwise stay behind work that rolled back. Such a store's release must work from any thread.
     *
     * @param key the scoped, hashed key
     * @param owner the owner token returned by {@link #claim}
     * @return {@code true} if the caller owned the claim (in progress, whatever its lease, or
     *     executed) and it is gone; {@code false} if it did not own it: nothing changed
     * @throws IdempotencyStoreException when the store cannot answer
     */
    boolean release(String key, String owner);

    /**
     * Whether {@link #markExecuted} and {@link #complete} join the caller's JTA transaction, so
     * that the mark or the outcome commits or rolls back with the caller's work (the JPA store on
     * the business database). For such a store the library stores the value a non-HTTP method
     * returned inside its transaction with {@link #complete} (nothing is written after the
     * commit; a rollback leaves the claim in progress, which the library then releases). For a
     * store that cannot join, the library marks the work executed of a method whose outcome is not yet known
     * (a failure its transaction may commit despite, a stage still running) only once the
     * transaction is about to commit, so that a rollback leaves no mark to undo.
     *
     * @return {@code false} by default
     */
    default boolean joinsCallerTransaction() {
        return false;
    }

    /**
     * Whether this store keeps its records in the application's own JVM, so that reading one
     * costs no round trip. For any other store the library keeps a short-lived copy of the
     * completed records it read (its replay cache), so that a storm of retries of one key costs
     * one round trip per node, not one per retry.
     *
     * @return {@code false} by default
     */
    default boolean keepsRecordsInThisJvm() {
        return false;
    }

    /**
     * Reads a live record.
     *
     * @param key the scoped, hashed key
     * @return the record, or empty when there is none or it has expired
     * @throws IdempotencyStoreException when the store cannot answer
     */
    Optional<IdempotencyRecord> find(String key);

    /**
     * Reads a live record with the times the store keeps (when claimed, when the lease ends, when it
     * expires), for the support look-up ({@code IdempotencySupportResource}); never called on the
     * request path.
     *
     * <p>The default implementation is {@link #find} with every time absent: a store written before
     * this method existed shows the state and the stored outcome, not the times.
     *
     * @param key the scoped, hashed key
     * @return the record and its times, or empty when there is none or it has expired
     * @throws IdempotencyStoreException when the store cannot answer
     */
    default Optional<RecordDetails> inspect(String key) {
        return find(key).map(RecordDetails::withoutTimes);
    }
}
