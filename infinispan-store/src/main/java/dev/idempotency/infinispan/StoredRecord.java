package dev.idempotency.infinispan;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.infinispan.protostream.annotations.ProtoFactory;
import org.infinispan.protostream.annotations.ProtoField;

import dev.idempotency.spi.IdempotencyRecord;
import dev.idempotency.spi.RecordState;
import dev.idempotency.spi.StoredOutcome;

/**
 * The value of one key in the idempotency cache, encoded with ProtoStream (readable in
 * Infinispan's console and REST API, never Java serialization). Expiry is the entry's lifespan,
 * kept by the server: {@code max(lease, retention)} while in progress, the retention once
 * executed or completed. The lease markers ({@code key|lease|owner}) and outcome markers
 * ({@code key|due}) are stored as this type too: no schema of their own.
 */
public final class StoredRecord {

    private final String state;
    private final String fingerprint;
    private final String owner;
    private final Integer outcomeStatus;
    private final List<StoredHeader> outcomeHeaders;
    private final byte[] outcomeBody;
    private final Boolean bodyStored;

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
     */
    @ProtoFactory
    public StoredRecord(String state, String fingerprint, String owner, Integer outcomeStatus,
            List<StoredHeader> outcomeHeaders, byte[] outcomeBody, Boolean bodyStored) {
        this.state = state;
        this.fingerprint = fingerprint;
        this.owner = owner;
        this.outcomeStatus = outcomeStatus;
        this.outcomeHeaders = outcomeHeaders == null ? List.of() : List.copyOf(outcomeHeaders);
        this.outcomeBody = outcomeBody;
        this.bodyStored = bodyStored;
    }

    static StoredRecord inProgress(String fingerprint, String owner) {
        return new StoredRecord(RecordState.IN_PROGRESS.name(), fingerprint, owner, null, null, null, null);
    }

    StoredRecord executed() {
        return new StoredRecord(RecordState.EXECUTED.name(), fingerprint, owner, null, null, null, null);
    }

    StoredRecord completed(StoredOutcome outcome) {
        List<StoredHeader> headers = new ArrayList<>();
        outcome.headers().forEach((name, values) -> values.forEach(value -> headers.add(new StoredHeader(name, value))));
        return new StoredRecord(RecordState.COMPLETED.name(), fingerprint, owner, outcome.status(), headers,
                outcome.bodyStored() ? outcome.body() : null, outcome.bodyStored());
    }

    /** @return the state's name */
    @ProtoField(number = 1, required = true)
    public String getState() {
        return state;
    }

    /** @return the claimer's fingerprint */
    @ProtoField(number = 2, required = true)
    public String getFingerprint() {
        return fingerprint;
    }

    /** @return the owner token */
    @ProtoField(number = 3, required = true)
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

    boolean is(RecordState candidate) {
        return candidate.name().equals(state);
    }

    boolean ownedBy(String candidate) {
        return owner.equals(candidate);
    }

    /**
     * @param key the scoped key
     * @param outcomeDue for an executed record: whether its outcome may still come (its lease marker lives)
     * @return the record as the SPI reports it
     */
    IdempotencyRecord toRecord(String key, boolean outcomeDue) {
        RecordState recordState = RecordState.valueOf(state);
        return switch (recordState) {
            case IN_PROGRESS -> IdempotencyRecord.inProgress(key, fingerprint);
            case EXECUTED, OUTCOME_LOST -> outcomeDue ? IdempotencyRecord.executed(key, fingerprint)
                    : IdempotencyRecord.outcomeLost(key, fingerprint);
            case COMPLETED -> IdempotencyRecord.completed(key, fingerprint, outcome());
        };
    }

    private StoredOutcome outcome() {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        outcomeHeaders.forEach(h -> headers.computeIfAbsent(h.getName(), n -> new ArrayList<>()).add(h.getValue()));
        return Boolean.TRUE.equals(bodyStored)
                ? StoredOutcome.of(outcomeStatus, headers, outcomeBody == null ? new byte[0] : outcomeBody)
                : StoredOutcome.withoutBody(outcomeStatus, headers);
    }
}
