package dev.idempotency.infinispan;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

import org.infinispan.protostream.annotations.ProtoFactory;
import org.infinispan.protostream.annotations.ProtoField;

import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;

/**
 * The value of one key in the idempotency cache, encoded with ProtoStream (readable in
 * Infinispan's console and REST API, never Java serialization). Expiry is the entry's lifespan,
 * kept by the server: {@code max(lease, retention)} while in progress, the retention once
 * executed or completed. The outcome markers ({@code key|due}), the clock probes ({@code key|now})
 * and the previous version's lease markers ({@code key|lease|owner}) are stored as this type too:
 * no schema of their own.
 *
 * <p><b>A claim's states.</b> A claim this version writes is {@value #CLAIMED}: its lease is
 * {@linkplain #getLeaseMillis() in the record}, counted from the entry's creation on the server.
 * Versions before 3 of the schema wrote {@code IN_PROGRESS} and kept the lease in a marker entry;
 * such a record is still read, and taken over when its marker is gone. A node of such a version
 * reads {@value #CLAIMED} as a state it does not know (below): it never takes a claim of ours over.
 *
 * <p><b>Other versions.</b> Every field is optional, so that a record another version of the
 * store wrote (fields added, or no longer written) reads without a failure; unknown fields are
 * skipped. A state this version does not know (a newer node's) is read as executed, its outcome
 * still expected: never free (the key does not run again here), never a store failure; the
 * claimer retries later ({@code 409}). Each unknown state is logged once ({@code IDEMP0611}).
 */
public final class StoredRecord {

    private static final Logger LOG = Logger.getLogger(StoredRecord.class.getName());
    /** States already logged as unknown; bounded, so that garbage cannot grow it. */
    private static final Set<String> UNKNOWN_LOGGED = ConcurrentHashMap.newKeySet();

    private final String state;
    private final String fingerprint;
    private final String owner;
    private final Integer outcomeStatus;
    private final List<StoredHeader> outcomeHeaders;
    private final byte[] outcomeBody;
    private final Boolean bodyStored;
    private final Long leaseMillis;
    private final Integer rewrites;

    /** A claim whose lease is in the record (see the class comment). */
    static final String CLAIMED = "CLAIMED";

    /**
     * For ProtoStream.
     *
     * @param state {@link RecordState#name()}
     * @param fingerprint the claimer's fingerprint
     * @param owner the owner token
     * @param outcomeStatus the stored status, once completed
     * @param outcomeHeaders the stored headers, once completed
     * @param outcomeBody the stored body, once completed with a body
     * @param bodyStored whether the body was stored
     * @param leaseMillis a claim's lease, in milliseconds from the entry's creation on the server
     * @param rewrites how often its owner wrote it again, else unchanged (null: never)
     */
    @ProtoFactory
    public StoredRecord(String state, String fingerprint, String owner, Integer outcomeStatus,
            List<StoredHeader> outcomeHeaders, byte[] outcomeBody, Boolean bodyStored, Long leaseMillis,
            Integer rewrites) {
        this.state = state;
        this.fingerprint = fingerprint;
        this.owner = owner;
        this.outcomeStatus = outcomeStatus;
        this.outcomeHeaders = outcomeHeaders == null ? List.of() : List.copyOf(outcomeHeaders);
        this.outcomeBody = outcomeBody;
        this.bodyStored = bodyStored;
        this.leaseMillis = leaseMillis;
        this.rewrites = rewrites;
    }

    static StoredRecord claimed(String fingerprint, String owner, long leaseMillis) {
        return new StoredRecord(CLAIMED, fingerprint, owner, null, null, null, null, leaseMillis, null);
    }

    /** @return a marker or probe entry's value: it says nothing, only its metadata counts */
    static StoredRecord marker() {
        return new StoredRecord(null, null, null, null, null, null, null, null, null);
    }

    StoredRecord executed() {
        return new StoredRecord(RecordState.EXECUTED.name(), fingerprint, owner, null, null, null, null, null, null);
    }

    StoredRecord completed(StoredOutcome outcome) {
        List<StoredHeader> headers = new ArrayList<>();
        outcome.headers().forEach((name, values) -> values.forEach(value -> headers.add(new StoredHeader(name, value))));
        return new StoredRecord(RecordState.COMPLETED.name(), fingerprint, owner, outcome.status(), headers,
                outcome.bodyStored() ? outcome.body() : null, outcome.bodyStored(), null, null);
    }

    /**
     * The same record for its owner to write again (to confirm a write whose answer was lost): it
     * differs from this one in its count of rewrites only. The Hot Rod server's
     * {@code replaceWithVersion} compares the version, then replaces by value equality; a rewrite
     * of equal bytes landing between those two steps of another caller's replace (a takeover)
     * would let both succeed, and both would hold the claim.
     *
     * @return this record, its rewrites counted one more
     */
    StoredRecord rewritten() {
        return new StoredRecord(state, fingerprint, owner, outcomeStatus, outcomeHeaders, outcomeBody, bodyStored,
                leaseMillis, rewrites == null ? 1 : rewrites + 1);
    }

    /**
     * @param read a record as read before {@link #rewritten()}
     * @return whether this is that record written again by its owner: the same owner and state,
     *     its rewrites counted one more
     */
    boolean isRewriteOf(StoredRecord read) {
        return read.owner != null && read.owner.equals(owner) && read.state.equals(state)
                && Objects.equals(rewrites, read.rewrites == null ? 1 : read.rewrites + 1);
    }

    /** @return the state's name */
    @ProtoField(number = 1)
    public String getState() {
        return state;
    }

    /** @return the claimer's fingerprint */
    @ProtoField(number = 2)
    public String getFingerprint() {
        return fingerprint;
    }

    /** @return the owner token */
    @ProtoField(number = 3)
    public String getOwner() {
        return owner;
    }

    /** @return the stored status, or null */
    @ProtoField(number = 4)
    public Integer getOutcomeStatus() {
        return outcomeStatus;
    }

    /** @return the stored headers */
    @ProtoField(number = 5, collectionImplementation = ArrayList.class)
    public List<StoredHeader> getOutcomeHeaders() {
        return outcomeHeaders;
    }

    /** @return the stored body, or null */
    @ProtoField(number = 6)
    public byte[] getOutcomeBody() {
        return outcomeBody;
    }

    /** @return whether the body was stored, or null before completion */
    @ProtoField(number = 7)
    public Boolean getBodyStored() {
        return bodyStored;
    }

    /** @return a claim's lease in milliseconds (state {@value #CLAIMED}), or null */
    @ProtoField(number = 8)
    public Long getLeaseMillis() {
        return leaseMillis;
    }

    /** @return how often its owner wrote it again, else unchanged ({@link #rewritten()}), or null: never */
    @ProtoField(number = 9)
    public Integer getRewrites() {
        return rewrites;
    }

    boolean is(RecordState candidate) {
        return candidate.name().equals(state);
    }

    boolean ownedBy(String candidate) {
        return candidate != null && candidate.equals(owner);
    }

    /** @return whether it is a claim in progress: ours ({@value #CLAIMED}) or a previous version's */
    boolean inProgress() {
        return CLAIMED.equals(state) || is(RecordState.IN_PROGRESS);
    }

    /** @return whether it is a previous version's claim, whose lease is a marker entry of its owner's */
    boolean leaseInMarker() {
        return is(RecordState.IN_PROGRESS);
    }

    /** @return whether its lease is in the record, not in a previous version's marker entry */
    boolean leaseInRecord() {
        return CLAIMED.equals(state) && leaseMillis != null;
    }

    /** @return whether it is in progress for this fingerprint (a record without one matches none) */
    boolean inProgressFor(String candidate) {
        return inProgress() && fingerprint != null && fingerprint.equals(candidate);
    }

    /**
     * @param key the scoped key
     * @param outcomeDue for an executed record: whether its outcome may still come (its lease marker lives)
     * @return the record as the SPI reports it
     */
    IdempotencyRecord toRecord(String key, boolean outcomeDue) {
        // another version's record may lack a fingerprint: it then matches no claim's
        String recordFingerprint = fingerprint == null ? "" : fingerprint;
        RecordState recordState = CLAIMED.equals(state) ? RecordState.IN_PROGRESS : known(state);
        if (recordState == null || (recordState == RecordState.COMPLETED
                && (outcomeStatus == null || outcomeStatus < 100 || outcomeStatus > 999))) {
            // a status out of HTTP's range is a damaged record, not a store that does not answer
            logUnknown(key);
            return IdempotencyRecord.executed(key, recordFingerprint);
        }
        return switch (recordState) {
            case IN_PROGRESS -> IdempotencyRecord.inProgress(key, recordFingerprint);
            case EXECUTED, OUTCOME_LOST -> outcomeDue ? IdempotencyRecord.executed(key, recordFingerprint)
                    : IdempotencyRecord.outcomeLost(key, recordFingerprint);
            case COMPLETED -> IdempotencyRecord.completed(key, recordFingerprint, outcome());
        };
    }

    private static RecordState known(String name) {
        for (RecordState candidate : RecordState.values()) {
            if (candidate.name().equals(name)) {
                return candidate;
            }
        }
        return null;
    }

    private void logUnknown(String key) {
        String shown = state == null ? "none" : state.length() > 40 ? state.substring(0, 40) + "..." : state;
        if (UNKNOWN_LOGGED.size() < 32 && UNKNOWN_LOGGED.add(shown)) {
            LOG.warning(InfinispanMessages.unknownRecordState(shown, key));
        }
    }

    private StoredOutcome outcome() {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (StoredHeader h : outcomeHeaders) {
            if (h.getName() != null && h.getValue() != null) {
                headers.computeIfAbsent(h.getName(), n -> new ArrayList<>()).add(h.getValue());
            }
        }
        return Boolean.TRUE.equals(bodyStored)
                ? StoredOutcome.of(outcomeStatus, headers, outcomeBody == null ? new byte[0] : outcomeBody)
                : StoredOutcome.withoutBody(outcomeStatus, headers);
    }
}
