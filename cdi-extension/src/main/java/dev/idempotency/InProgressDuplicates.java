package dev.idempotency;

/**
 * What a duplicate gets while the request (or call) it repeats is still running, see
 * {@link Idempotent#inProgress()}.
 */
public enum InProgressDuplicates {

    /**
     * The duplicate is answered at once: over HTTP {@code 409} with problem type
     * {@code request-in-progress} and {@code Retry-After}; a non-HTTP call throws
     * {@link dev.idempotency.exceptions.IdempotencyConflictException}. The caller retries. The default.
     */
    CONFLICT,

    /**
     * The duplicate waits, up to {@link Idempotent#maxWait()}, for the first request's outcome,
     * and then gets its replay (or the stored value). Past the maximum it gets what
     * {@link #CONFLICT} gives. If the first request fails and gives its key back while the
     * duplicate waits, the duplicate claims the key and runs, as its retry would; it never takes
     * over a claim whose lease ran out. While it waits it holds its request thread but no store
     * connection: it is woken when a claim of the key ends on the same node, and otherwise reads
     * the record again after a back-off (10 ms, doubling up to 250 ms). At most
     * {@code idempotency.in-progress.max-waiting} duplicates wait at once on one node; the next
     * ones are answered as with {@link #CONFLICT}, at once. A non-HTTP call inside a JTA
     * transaction does not wait (the call it repeats may be its own transaction's, whose outcome
     * is stored only at the commit).
     */
    WAIT
}
