-- Paid responses kept for retries that carry the same Idempotency-Key
-- (24 hours; sqlite/debit.go writes one in the debit's transaction and
-- removes expired ones as it goes).
CREATE TABLE idempotency_keys (
    key_id      INTEGER NOT NULL,
    idem_key    TEXT    NOT NULL,
    fingerprint TEXT    NOT NULL,
    body        BLOB    NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (key_id, idem_key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- Usage totals and ledger pages filtered by time.
CREATE INDEX ledger_time ON ledger (created_at);
