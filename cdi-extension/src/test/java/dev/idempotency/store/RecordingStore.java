package dev.idempotency.store;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStore;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.StoredOutcome;

/**
 * A real store for unit tests that also tells which calls reached it, and can be made to fail
 * (a store that is down) or to join the caller's transaction (as a JPA store does).
 */
public final class RecordingStore implements IdempotencyStore {

    private final IdempotencyStore delegate;
    private final List<String> calls = new CopyOnWriteArrayList<>();
    private volatile boolean down;
    private volatile boolean joinsCallerTransaction;
    private volatile String loseAnswerOf;
    private volatile boolean downAfterLostAnswer;

    /** @param delegate the store that keeps the records */
    public RecordingStore(IdempotencyStore delegate) {
        this.delegate = delegate;
    }

    /** @param down whether every call fails from now on, as a store that cannot be reached */
    public void down(boolean down) {
        this.down = down;
    }

    /**
     * The next call of an operation reaches the store and changes it, but its answer is lost: it
     * fails as a call whose connection broke after the server acted on it.
     *
     * @param operation {@code claim}, {@code complete}, {@code markExecuted} or {@code release}
     */
    public void loseAnswerOfNext(String operation) {
        this.loseAnswerOf = operation;
        this.downAfterLostAnswer = false;
    }

    /**
     * As {@link #loseAnswerOfNext}, and the store is down from then on: the server died after it
     * acted on the call, before its answer left.
     *
     * @param operation {@code claim}, {@code complete}, {@code markExecuted} or {@code release}
     */
    public void loseAnswerOfNextAndGoDown(String operation) {
        this.loseAnswerOf = operation;
        this.downAfterLostAnswer = true;
    }

    /** Fails the call if its answer is to be lost (after the store acted on it). */
    private <T> T answered(String operation, T answer) {
        if (operation.equals(loseAnswerOf)) {
            loseAnswerOf = null;
            down = downAfterLostAnswer;
            throw new IdempotencyStoreException("the connection broke before the answer came (" + operation + ")");
        }
        return answer;
    }

    /** @param joins whether the store says it joins the caller's transaction */
    public void joinsCallerTransaction(boolean joins) {
        this.joinsCallerTransaction = joins;
    }

    /**
     * @param operation {@code claim}, {@code complete}, {@code markExecuted}, {@code release} or {@code find}
     * @return how often it was called
     */
    public long calls(String operation) {
        return calls.stream().filter(operation::equals).count();
    }

    /** @return every call, in order */
    public List<String> calls() {
        return List.copyOf(calls);
    }

    private void call(String operation) {
        calls.add(operation);
        if (down) {
            throw new IdempotencyStoreException("the store is down (" + operation + ")");
        }
    }

    @Override
    public ClaimResult claim(String key, String fingerprint, Duration lease, Duration retention) {
        call("claim");
        return answered("claim", delegate.claim(key, fingerprint, lease, retention));
    }

    @Override
    public boolean complete(String key, String owner, StoredOutcome outcome, Duration retention) {
        call("complete");
        return answered("complete", delegate.complete(key, owner, outcome, retention));
    }

    @Override
    public boolean markExecuted(String key, String owner, Duration lease, Duration retention) {
        call("markExecuted");
        return answered("markExecuted", delegate.markExecuted(key, owner, lease, retention));
    }

    @Override
    public boolean release(String key, String owner) {
        call("release");
        return answered("release", delegate.release(key, owner));
    }

    @Override
    public boolean joinsCallerTransaction() {
        return joinsCallerTransaction;
    }

    @Override
    public Optional<IdempotencyRecord> find(String key) {
        call("find");
        return delegate.find(key);
    }
}
