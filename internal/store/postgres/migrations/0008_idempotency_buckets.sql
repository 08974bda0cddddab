-- Paid responses kept for retries that carry the same Idempotency-Key
-- (24 hours; postgres/debit.go writes one in the debit's statement and
-- removes expired ones as it goes).
CREATE TABLE idempotency_keys (
    key_id      bigint NOT NULL,
    idem_key    text   NOT NULL,
    fingerprint text   NOT NULL,
    body        bytea  NOT NULL,
    created_at  bigint NOT NULL,
    PRIMARY KEY (key_id, idem_key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- Usage totals and ledger pages filtered by time.
CREATE INDEX ledger_time ON ledger (created_at);

-- The shared rate limiter is a token bucket per key (postgres/limiter.go):
-- tokens left after the last request, when that was (Unix µs), and
-- whether it was allowed. It replaces the per-minute windows, which let a
-- burst across a minute boundary through at twice the limit.
CREATE TABLE rate_buckets (
    key_id     bigint PRIMARY KEY,
    tokens     double precision NOT NULL,
    updated_at bigint NOT NULL,
    allowed    boolean NOT NULL
);
DROP TABLE rate_windows;
