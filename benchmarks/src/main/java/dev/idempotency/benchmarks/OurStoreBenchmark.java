package dev.idempotency.benchmarks;

import java.time.Duration;
import java.util.Optional;

import org.openjdk.jmh.annotations.Benchmark;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.StoredOutcome;

/**
 * What every store benchmark measures of ours, through the store SPI exactly as the interceptor
 * and the filter call it; each subclass adds the raw baselines of its store.
 */
public abstract class OurStoreBenchmark {

    static final Duration LEASE = Duration.ofSeconds(60);
    /** short, so that a run's records (tens of thousands a second) expire instead of filling the servers */
    static final Duration TTL = Duration.ofMinutes(2);

    /** the store under test, set up by the subclass */
    protected IdempotencyStore store;
    /** a completed key, for the replay look-ups */
    protected String replayKey;

    /**
     * A first claim of a fresh key, then its completion, through the SPI as the library calls it.
     *
     * @return whether the completion was stored
     */
    static boolean claimAndComplete(IdempotencyStore store, String key, StoredOutcome outcome, Duration ttl) {
        ClaimResult.Acquired claim = (ClaimResult.Acquired) store.claim(key, Payloads.FINGERPRINT, LEASE);
        return store.complete(key, claim.owner(), outcome, ttl);
    }

    /** @return the key of a record claimed and completed with the 1 KiB answer (its own copy of the body) */
    static String completeOne(IdempotencyStore store, Duration ttl) {
        String key = new Keys().next();
        claimAndComplete(store, key, StoredOutcome.of(Payloads.OUTCOME.status(), Payloads.OUTCOME.headers(),
                Payloads.BODY.clone()), ttl);
        return key;
    }

    /** Completes {@link #replayKey} in {@link #store}. */
    protected void completeReplayKey() {
        replayKey = new Keys().next();
        claimAndComplete(store, replayKey, Payloads.OUTCOME, TTL);
    }

    /** Ours: a first claim, then its completion with a 1 KiB answer (owner-checked). */
    @Benchmark
    public boolean oursClaimAndComplete(Keys keys) {
        return claimAndComplete(store, keys.next(), Payloads.OUTCOME, TTL);
    }

    /** Ours: what a replay reads, the completed record with its answer. */
    @Benchmark
    public Optional<IdempotencyRecord> oursReplayLookup() {
        return store.find(replayKey);
    }
}
