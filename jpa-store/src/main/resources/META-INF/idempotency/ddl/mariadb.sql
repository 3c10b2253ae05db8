-- The JPA store's table for MariaDB and MySQL (idempotency-jpa). Apply it with your migrations
-- when schema generation is off. Times are the database's clock in UTC.
-- created_at is when the current claim was made (a takeover of an abandoned claim, or a claim
-- after the retention, writes it again).
CREATE TABLE idempotency_record (
    record_key      VARCHAR(64)  NOT NULL,
    state           VARCHAR(16)  NOT NULL,
    fingerprint     VARCHAR(64)  NOT NULL,
    owner_token     VARCHAR(64)  NOT NULL,
    version         BIGINT       NOT NULL,
    lease_end       DATETIME(6)  NOT NULL,
    expires_at      DATETIME(6),
    outcome_status  INTEGER,
    outcome_headers LONGTEXT,
    outcome_body    LONGBLOB,
    body_stored     BOOLEAN,
    created_at      DATETIME(6)  NOT NULL,
    updated_at      DATETIME(6)  NOT NULL,
    CONSTRAINT idempotency_record_pk PRIMARY KEY (record_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin; -- binary: keys are case-sensitive base64url
CREATE INDEX idempotency_record_expiry ON idempotency_record (state, expires_at);
CREATE INDEX idempotency_record_lease ON idempotency_record (state, lease_end);
