-- The JPA store's table for PostgreSQL (idempotency-jpa). Apply it with your migrations when
-- schema generation is off. Times are the database's clock in UTC.
-- created_at is when the current claim was made (a takeover of an abandoned claim, or a claim
-- after the retention, writes it again).
CREATE TABLE idempotency_record (
    record_key      VARCHAR(64)  NOT NULL,
    state           VARCHAR(16)  NOT NULL,
    fingerprint     VARCHAR(64)  NOT NULL,
    owner_token     VARCHAR(64)  NOT NULL,
    version         BIGINT       NOT NULL,
    lease_end       TIMESTAMP(6) NOT NULL,
    expires_at      TIMESTAMP(6),
    outcome_status  INTEGER,
    outcome_headers TEXT,
    outcome_body    BYTEA,
    body_stored     BOOLEAN,
    created_at      TIMESTAMP(6) NOT NULL,
    updated_at      TIMESTAMP(6) NOT NULL,
    CONSTRAINT idempotency_record_pk PRIMARY KEY (record_key)
);
CREATE INDEX idempotency_record_expiry ON idempotency_record (state, expires_at);
CREATE INDEX idempotency_record_lease ON idempotency_record (state, lease_end);
