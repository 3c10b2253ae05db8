package dev.idempotency.cdi;

import java.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.logging.Level;
import java.util.logging.Logger;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.interceptor.InvocationContext;

import dev.idempotency.IdempotencyOutcome;
import dev.idempotency.claim.ClaimFailures;
import dev.idempotency.claim.EventPublisher;
import dev.idempotency.claim.InProgressWaits;
import dev.idempotency.claim.KeySpace;
import dev.idempotency.claim.OwnedClaim;
import dev.idempotency.claim.ReleaseRetries;
import dev.idempotency.claim.RetryOutcomes;
import dev.idempotency.claim.ScopeRequests;
import dev.idempotency.claim.ScopedKey;
import dev.idempotency.claim.StageEnds;
import dev.idempotency.claim.StageInTransaction;
import dev.idempotency.claim.TenantLookup;
import dev.idempotency.claim.TransactionBinding;
import dev.idempotency.claim.TransactionClaims;
import dev.idempotency.exceptions.AuthenticationRequiredException;
import dev.idempotency.exceptions.IdempotencyConflictException;
import dev.idempotency.exceptions.IdempotencyException;
import dev.idempotency.exceptions.IdempotencyKeyReuseException;
import dev.idempotency.exceptions.MissingTenantException;
import dev.idempotency.exceptions.UnknownIdempotencyTokenException;
import dev.idempotency.internal.Messages;
import dev.idempotency.invocation.MethodPlan;
import dev.idempotency.invocation.ResultCodec;
import dev.idempotency.invocation.ResultShape;
import dev.idempotency.spi.ClaimResult;
import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.IdempotencyStoreException;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;
import dev.idempotency.spi.support.TransactionGuard;
import dev.idempotency.tokens.TokenRegistry;

/**
 * Runs a non-HTTP {@code @Idempotent} invocation: claim the key from its {@code @IdempotencyKey}
 * parameters, proceed once, store the result as JSON-B; answer duplicates with the stored value,
 * {@link IdempotencyConflictException} or {@link IdempotencyKeyReuseException}.
 */
@ApplicationScoped
public class MethodInvocations {

    private static final Logger LOG = Logger.getLogger(MethodInvocations.class.getName());
    private static final Map<String, List<String>> JSON = Map.of("Content-Type", List.of("application/json"));

    @Inject
    IdempotencyRuntime runtime;

    @Inject
    CurrentCaller currentCaller;

    private final ResultCodec codec = new ResultCodec();
    private EventPublisher events;
    private TokenRegistry tokens;
    private TransactionBinding binding;
    /** For a call made after its thread's transaction rolled back: it runs outside any. */
    private final TransactionBinding outsideTransactions = new TransactionBinding(TransactionGuard.none());
    private TenantLookup tenants;
    private InProgressWaits waits;
    private ReleaseRetries retries;

    @jakarta.annotation.PostConstruct
    void resolveOnce() {
        // once, when the first call creates this bean (after the deployment): not per call
        events = runtime.outcomeEvents();
        tokens = runtime.tokens();
        binding = runtime.transactionBinding();
        tenants = runtime.tenants();
        waits = runtime.waits();
        retries = runtime.releaseRetries();
    }

    @PreDestroy
    void close() {
        codec.close(); // lifecycle callbacks must not throw checked exceptions (Payara refuses the deployment)
    }

    /**
     * @param context the intercepted invocation
     * @param plan the method's plan
     * @return the method's result, or the stored one for a duplicate
     * @throws Exception whatever the method throws, unchanged
     */
    public Object invoke(InvocationContext context, MethodPlan plan) throws Exception {
        if (!binding.transactions().rolledBack() || !TransactionGuard.inAfterCompletion()) {
            // no transaction, a running one, or one a timeout rolled back under the caller: the call's own
            return invoke(context, plan, binding);
        }
        // Called from the afterCompletion of a transaction that rolled back, still on the thread
        // (an AFTER_FAILURE observer): nothing joins it, the work counts as soon as it returns, and
        // the store records it in transactions of its own.
        boolean began = TransactionGuard.beginCallAfterItsTransaction();
        try {
            return invoke(context, plan, outsideTransactions);
        } finally {
            if (began) {
                TransactionGuard.endCallAfterItsTransaction();
            }
        }
    }

    private Object invoke(InvocationContext context, MethodPlan plan, TransactionBinding binding) throws Exception {
        Principal caller = currentCaller.get();
        KeySpace space = KeySpace.of(plan.policy(), tenants, ScopeRequests.withoutHttp(plan.policy().endpoint(), caller));
        if (!space.admitted()) {
            return refuse(plan, space.refusal() == KeySpace.Refusal.AUTHENTICATION_REQUIRED
                    ? new AuthenticationRequiredException(Messages.authenticationRequired(plan.where()))
                    : new MissingTenantException(Messages.missingTenant(plan.where(),
                            runtime.settings().tenantSource().name())));
        }
        Object[] arguments = context.getParameters();
        String rawKey;
        String fingerprint;
        try {
            rawKey = plan.keys().extract(arguments);
            fingerprint = plan.fingerprint(codec, arguments);
        } catch (IdempotencyException refused) {
            return refuse(plan, refused); // an invalid key, arguments that cannot be fingerprinted
        }
        String key = space.key(plan.policy(), rawKey);
        String earlier = TransactionClaims.fingerprintOf(binding.transactions(), key);
        if (earlier != null) {
            return inThisTransaction(plan, key, earlier.equals(fingerprint));
        }
        ClaimResult claim;
        try {
            claim = retries.claimedAgain(runtime.store(), plan.policy(), key, fingerprint,
                    runtime.store().claim(key, fingerprint, plan.policy().lease(), plan.policy().ttl()));
        } catch (RuntimeException e) {
            events.fire(IdempotencyOutcome.STORE_FAILURE, plan.policy(), key, false);
            if (plan.policy().failOpen()) {
                ClaimFailures.log(plan.policy(), true, e);
                return context.proceed();
            }
            return refuse(plan, new IdempotencyStoreException(Messages.storeFailedOnInvocation(plan.where()), e));
        }
        // Not inside a JTA transaction, active or marked rollback-only: the first call may be this
        // transaction's own (its outcome is stored only when it commits), or wait for locks this
        // transaction holds until it ends.
        if (!binding.transactions().inTransaction()) {
            claim = waits.afterClaim(runtime.store(), plan.policy(), key, fingerprint, claim);
        }
        if (claim instanceof ClaimResult.Existing existing) {
            return duplicate(plan, existing.record(), fingerprint);
        }
        String owner = ((ClaimResult.Acquired) claim).owner();
        if (plan.policy().serverIssuedKeys()) {
            IdempotencyException refusal = refusalOfToken(plan, caller, rawKey, key, owner);
            if (refusal != null) {
                return refuse(plan, refusal);
            }
        }
        TransactionClaims.claimed(binding.transactions(), key, fingerprint);
        OwnedClaim owned = new OwnedClaim(runtime.store(), plan.policy(), key, owner, events, waits, retries, false);
        events.fire(IdempotencyOutcome.CLAIMED, plan.policy(), key, false);
        Object result = binding.run(owned, context::proceed);
        return switch (plan.result().kind()) {
            case VOID -> {
                completeOnCommit(binding, owned, StoredOutcome.of(204, Map.of(), new byte[0]));
                yield result;
            }
            case VALUE -> {
                completeOnCommit(binding, owned, outcome(owned, plan, result));
                yield result;
            }
            case STAGE -> completeLater(binding, owned, plan, (CompletionStage<?>) result);
        };
    }

    /**
     * Lets the first call with a key run only if the key is a live token issued to the caller;
     * otherwise gives the claim back.
     *
     * @return {@code null} to run; else why not
     */
    private IdempotencyException refusalOfToken(MethodPlan plan, Principal caller, String token, String key, String owner) {
        try {
            if (tokens.admit(caller, token, () -> OwnedClaim.giveBack(runtime.store(), plan.policy(), key, owner, waits,
                    retries, () -> { }))) {
                return null;
            }
        } catch (RuntimeException e) {
            events.fire(IdempotencyOutcome.STORE_FAILURE, plan.policy(), key, false);
            return new IdempotencyStoreException(Messages.storeFailedOnInvocation(plan.where()), e);
        }
        return new UnknownIdempotencyTokenException(Messages.unknownToken(plan.where()));
    }

    /** Refuses a call the way its return type allows: a failed stage for a stage, else thrown. */
    private static Object refuse(MethodPlan plan, IdempotencyException refusal) {
        if (plan.result().kind() == ResultShape.Kind.STAGE) {
            return CompletableFuture.failedFuture(refusal);
        }
        throw refusal;
    }

    /**
     * Completes now, or, inside a JTA transaction, with it (released if it rolls back): see
     * {@link TransactionBinding#completeWithCommit}.
     */
    private static void completeOnCommit(TransactionBinding binding, OwnedClaim owned, StoredOutcome outcome) {
        if (!binding.completeWithCommit(owned, outcome)) {
            owned.complete(outcome);
        }
    }

    /**
     * A stage's outcome counts once the stage completed and, when the method ran in a
     * transaction, the transaction committed: a rollback releases the key once the stage ended,
     * unless the stage's own transaction (an asynchronous bean's) committed its work
     * ({@link StageInTransaction}). A stage already complete when the method returns inside a transaction is handled like a
     * value (see {@link TransactionBinding#completeWithCommit}) or like a thrown failure.
     * A stage still running is marked executed with the transaction's commit: if it then fails, the
     * committed part stays executed (retries are told its result is not available), as for a
     * failure the transaction commits despite.
     */
    private Object completeLater(TransactionBinding binding, OwnedClaim owned, MethodPlan plan, CompletionStage<?> stage) {
        if (stage == null) {
            completeOnCommit(binding, owned, outcome(owned, plan, null));
            return null;
        }
        boolean active = binding.transactions().active();
        CompletableFuture<?> done = doneNow(stage);
        if (done != null && active) {
            if (!done.isCompletedExceptionally()) {
                try {
                    completeOnCommit(binding, owned, outcome(owned, plan, done.join()));
                } catch (RuntimeException notStored) {
                    // taken over, or the store failed: the transaction is marked rollback-only, and
                    // the caller, written for a stage, is told through it
                    return CompletableFuture.failedFuture(notStored);
                }
            } else if (!binding.releaseAfterFailure(owned)) {
                return CompletableFuture.failedFuture(owned.takenOver());
            }
            return stage;
        }
        StageInTransaction ending = new StageInTransaction(owned, value -> outcome(owned, plan, value), binding.transactions());
        ending.awaitTransaction(binding.transactions().whenTransactionEnds(ending::transactionEnded));
        // What the transaction commits is the work's first part: marked executed with it (fenced,
        // as a failure's), so that a stage failing after the commit never lets a retry redo it.
        if (active && !binding.markExecutedWithCommit(owned)) {
            return CompletableFuture.failedFuture(owned.takenOver());
        }
        // The caller gets a stage that completes only after the outcome is stored or released
        // (or, in a transaction still open, left to its end).
        return StageEnds.after(stage, ending::stageEnded);
    }

    /**
     * A call whose key a call earlier in the same transaction claimed: a duplicate of a call still
     * in progress (its outcome commits with the transaction), or, with other arguments, a reuse of
     * the key; answered without asking the store ({@link TransactionClaims}).
     */
    private Object inThisTransaction(MethodPlan plan, String key, boolean sameArguments) {
        IdempotencyOutcome outcome = sameArguments ? IdempotencyOutcome.CONFLICT : IdempotencyOutcome.MISMATCH;
        events.fire(outcome, plan.policy(), key, false);
        return refuse(plan, refusalOfDuplicate(plan, outcome, ScopedKey.forLog(key)));
    }

    /** @return the exception for a duplicate in progress ({@code CONFLICT}) or a key reused ({@code MISMATCH}) */
    private static IdempotencyException refusalOfDuplicate(MethodPlan plan, IdempotencyOutcome outcome, String keyHash) {
        return outcome == IdempotencyOutcome.MISMATCH
                ? new IdempotencyKeyReuseException(Messages.invocationKeyReused(plan.where(), keyHash))
                : new IdempotencyConflictException(Messages.invocationInProgress(plan.where(), keyHash));
    }

    /** @return the stage as a future when it is complete already, else {@code null} */
    private static CompletableFuture<?> doneNow(CompletionStage<?> stage) {
        try {
            CompletableFuture<?> future = stage.toCompletableFuture();
            return future.isDone() ? future : null;
        } catch (UnsupportedOperationException e) {
            return null; // a stage that cannot tell: wait for it
        }
    }

    private StoredOutcome outcome(OwnedClaim owned, MethodPlan plan, Object value) {
        try {
            byte[] written;
            try {
                written = codec.writeReadableResult(value, plan.result().valueType());
            } catch (ResultCodec.UnreadableResult unreadable) {
                // Stored, every duplicate would fail reading it (a record component of an interface
                // type JSON-B cannot instantiate, an Iterable): told "not stored" instead, never run again.
                LOG.log(Level.SEVERE, Messages.resultNotReadBack(plan.where(), owned.keyForLog(),
                        plan.result().valueType().getTypeName()), unreadable.getCause());
                return StoredOutcome.withoutBody(200, JSON);
            }
            int cap = runtime.settings().maxStoredBodySize();
            if (written.length > cap) {
                // as an HTTP answer's body: kept within the bound every stored outcome has
                LOG.warning(Messages.resultTooLargeToStore(plan.where(), owned.keyForLog(), written.length, cap));
                return StoredOutcome.withoutBody(200, JSON);
            }
            return StoredOutcome.of(200, JSON, written);
        } catch (RuntimeException | StackOverflowError e) {
            // (a result nested deeper than JSON-B's recursion reaches) the work is done: told "not
            // stored", never run again; the claim must not stay open for its lease
            LOG.log(Level.SEVERE, Messages.resultNotStorable(plan.where(), owned.keyForLog()), e);
            return StoredOutcome.withoutBody(200, JSON);
        }
    }

    private Object duplicate(MethodPlan plan, IdempotencyRecord record, String fingerprint) {
        String keyHash = ScopedKey.forLog(record.key());
        IdempotencyOutcome outcome = RetryOutcomes.of(record, fingerprint);
        ResultShape result = plan.result();
        Object value = null;
        if (outcome == IdempotencyOutcome.REPLAYED && result.kind() != ResultShape.Kind.VOID
                && result.valueType() != Void.class) {
            try {
                value = codec.read(record.outcome().body(), result.valueType());
            } catch (RuntimeException | StackOverflowError unreadable) {
                // stored by a version of the class that is gone (a redeployment within the ttl): lost, not replayed
                String message = Messages.storedResultUnreadable(plan.where(), keyHash, result.valueType().getTypeName());
                LOG.log(Level.SEVERE, message, unreadable);
                events.fire(IdempotencyOutcome.OUTCOME_LOST, plan.policy(), record.key(), false);
                return refuse(plan, new IdempotencyException(message));
            }
        }
        events.fire(outcome, plan.policy(), record.key(), false);
        IdempotencyException refusal = switch (outcome) {
            case MISMATCH, CONFLICT -> refusalOfDuplicate(plan, outcome, keyHash);
            case OUTCOME_LOST -> record.state() == RecordState.OUTCOME_LOST
                    ? new IdempotencyException(Messages.resultLost(plan.where(), keyHash))
                    : new IdempotencyException(Messages.resultNotStored(plan.where(), keyHash));
            default -> null;
        };
        if (refusal != null) {
            return refuse(plan, refusal);
        }
        return result.kind() == ResultShape.Kind.STAGE ? CompletableFuture.completedFuture(value) : value;
    }
}
