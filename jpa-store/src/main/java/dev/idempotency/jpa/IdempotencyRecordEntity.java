package dev.idempotency.jpa;

import java.time.LocalDateTime;

import jakarta.persistence.Cacheable;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/**
 * One row of {@code idempotency_record}: a claimed key, its state and, once completed, the
 * outcome replayed to retries. Times are the database's clock in UTC ({@link DatabaseClock}), never an
 * application node's. The DDL for PostgreSQL, MariaDB and H2 is in this jar under
 * {@code META-INF/idempotency/ddl/}.
 *
 * <p>Never in a second-level (shared) cache: other nodes change the rows with bulk statements that
 * no node's cache hears of. A unit whose {@code shared-cache-mode} is {@code ALL} caches it anyway;
 * the store's reads bypass that cache too ({@link JpaRecords}).
 */
@Entity
@Cacheable(false)
@Table(name = "idempotency_record", indexes = {
    @Index(name = "idempotency_record_expiry", columnList = "state, expires_at"),
    @Index(name = "idempotency_record_lease", columnList = "state, lease_end")})
public class IdempotencyRecordEntity {

    /** The scoped, hashed key (base64url SHA-256): the unique constraint claims race on. */
    @Id
    @Column(name = "record_key", length = 64, nullable = false)
    private String key;

    @Column(name = "state", length = 16, nullable = false)
    private String state;

    @Column(name = "fingerprint", length = 64, nullable = false)
    private String fingerprint;

    @Column(name = "owner_token", length = 64, nullable = false)
    private String owner;

    @Version
    @Column(name = "version", nullable = false)
    private long version;

    /**
     * When an in-progress claim may be taken over (by a claim with the same fingerprint); when an
     * executed record's outcome counts as lost.
     */
    @Column(name = "lease_end", nullable = false)
    private LocalDateTime leaseEnd;

    /**
     * When the record stops binding its key (its retention ends): completed and executed records,
     * and in-progress claims (the later of lease and retention). Null on in-progress rows written
     * before claims recorded their retention: their lease end counts instead.
     */
    @Column(name = "expires_at")
    private LocalDateTime expiresAt;

    @Column(name = "outcome_status")
    private Integer outcomeStatus;

    /**
     * The replayed headers, one {@code name:value} a line (header values hold no line breaks).
     * Plain strings and bytes, not {@code @Lob}: the shipped DDL has TEXT/BYTEA (PostgreSQL),
     * LONGTEXT/LONGBLOB (MariaDB), CLOB/BLOB (H2), which both EclipseLink and Hibernate read and
     * write as values, whereas Hibernate maps a {@code @Lob} to PostgreSQL large objects
     * ({@code oid}) and then fails on every row. The lengths only matter where the provider
     * generates the table: PostgreSQL's largest VARCHAR for the headers, a large binary for the body.
     */
    @Column(name = "outcome_headers", length = 10_485_760)
    private String outcomeHeaders;

    @Column(name = "outcome_body", length = Integer.MAX_VALUE)
    private byte[] outcomeBody;

    @Column(name = "body_stored")
    private Boolean bodyStored;

    @Column(name = "created_at", nullable = false)
    private LocalDateTime createdAt;

    @Column(name = "updated_at", nullable = false)
    private LocalDateTime updatedAt;

    /** For JPA. */
    protected IdempotencyRecordEntity() {
    }

    IdempotencyRecordEntity(String key, String fingerprint, String owner, LocalDateTime now, LocalDateTime leaseEnd,
            LocalDateTime expiresAt) {
        this.key = key;
        this.state = JpaRecords.IN_PROGRESS;
        this.fingerprint = fingerprint;
        this.owner = owner;
        this.leaseEnd = leaseEnd;
        this.expiresAt = expiresAt;
        this.createdAt = now;
        this.updatedAt = now;
    }

    /**
     * A row as a query read it, outside any persistence context ({@link AutoCommitRead}): never
     * persisted or merged, only looked at.
     */
    static IdempotencyRecordEntity asRead(String key, String state, String fingerprint, String owner, long version,
            LocalDateTime leaseEnd, LocalDateTime expiresAt, LocalDateTime createdAt) {
        IdempotencyRecordEntity row = new IdempotencyRecordEntity(key, fingerprint, owner, createdAt, leaseEnd, expiresAt);
        row.state = state;
        row.version = version;
        return row;
    }

    /**
     * @param status the outcome's status, or null
     * @param headers the outcome's headers, encoded, or null
     * @param body the outcome's body, or null
     * @param stored whether the body was kept, or null
     * @return this row, its outcome as read
     */
    IdempotencyRecordEntity withOutcome(Integer status, String headers, byte[] body, Boolean stored) {
        this.outcomeStatus = status;
        this.outcomeHeaders = headers;
        this.outcomeBody = body;
        this.bodyStored = stored;
        return this;
    }

    String key() {
        return key;
    }

    String state() {
        return state;
    }

    String fingerprint() {
        return fingerprint;
    }

    String owner() {
        return owner;
    }

    long version() {
        return version;
    }

    LocalDateTime leaseEnd() {
        return leaseEnd;
    }

    LocalDateTime expiresAt() {
        return expiresAt;
    }

    /** @return when the current claim was made: the first insert, a takeover or a claim after the retention */
    LocalDateTime createdAt() {
        return createdAt;
    }

    Integer outcomeStatus() {
        return outcomeStatus;
    }

    String outcomeHeaders() {
        return outcomeHeaders;
    }

    byte[] outcomeBody() {
        return outcomeBody;
    }

    Boolean bodyStored() {
        return bodyStored;
    }
}
