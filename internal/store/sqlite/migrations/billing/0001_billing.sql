-- The billing file (DB-billing beside the database DB): keys, the ledger,
-- stored answers of idempotent requests, the gateway's upstream ledger and
-- budget, and the 'keys' counter. It has a write connection of its own, so
-- that a debit never waits for a write of data (a living-world tick, an
-- import) or its full-text work, and its commit syncs only billing pages.
-- The tables are those the database's migrations up to 0038 made; 0039
-- moves their rows here and drops them from the database.
CREATE TABLE api_keys (
    id         INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL DEFAULT '',
    prefix     TEXT    NOT NULL,
    digest     BLOB    NOT NULL UNIQUE,
    balance    INTEGER NOT NULL CHECK (balance >= 0),
    rate_limit INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER,
    fault      TEXT    NOT NULL DEFAULT ''
);

CREATE TABLE ledger (
    id            INTEGER PRIMARY KEY,
    key_id        INTEGER NOT NULL REFERENCES api_keys (id),
    kind          TEXT    NOT NULL CHECK (kind IN ('credit', 'debit')),
    request_id    TEXT    NOT NULL DEFAULT '',
    endpoint      TEXT    NOT NULL DEFAULT '',
    items         INTEGER NOT NULL DEFAULT 0,
    amount        INTEGER NOT NULL CHECK (amount > 0),
    balance_after INTEGER NOT NULL CHECK (balance_after >= 0),
    created_at    INTEGER NOT NULL
);
CREATE INDEX ledger_key ON ledger (key_id, id);
CREATE INDEX ledger_request ON ledger (key_id, request_id) WHERE kind = 'debit' AND request_id != '';
CREATE INDEX ledger_time ON ledger (created_at);
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
BEGIN SELECT RAISE(ABORT, 'ledger is append-only'); END;
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
BEGIN SELECT RAISE(ABORT, 'ledger is append-only'); END;

CREATE TABLE idempotency_keys (
    key_id      INTEGER NOT NULL,
    idem_key    TEXT    NOT NULL,
    fingerprint TEXT    NOT NULL,
    body        BLOB    NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (key_id, idem_key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

CREATE TABLE upstream_ledger (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    request_id         TEXT NOT NULL,
    key_id             INTEGER NOT NULL,
    endpoint           TEXT NOT NULL,
    cache_hit          INTEGER NOT NULL,
    status             INTEGER NOT NULL,
    upstream_micro_usd INTEGER NOT NULL,
    created_at         INTEGER NOT NULL
);
CREATE TRIGGER upstream_ledger_no_update BEFORE UPDATE ON upstream_ledger
BEGIN SELECT RAISE(ABORT, 'upstream_ledger is append-only'); END;
CREATE TRIGGER upstream_ledger_no_delete BEFORE DELETE ON upstream_ledger
BEGIN SELECT RAISE(ABORT, 'upstream_ledger is append-only'); END;

CREATE TABLE upstream_budget (
    period   TEXT PRIMARY KEY,   -- 'total' or 'day:YYYY-MM-DD' (UTC)
    spent    INTEGER NOT NULL,   -- micro-USD settled
    reserved INTEGER NOT NULL    -- micro-USD held by calls in flight
);

CREATE TABLE upstream_holds (
    hold         TEXT NOT NULL,     -- one upstream call
    period       TEXT NOT NULL,     -- as upstream_budget.period
    micros       INTEGER NOT NULL,  -- reserved
    limit_micros INTEGER NOT NULL,  -- the budget the reservation must fit
    spent        INTEGER NOT NULL DEFAULT 0, -- what the call cost, once known
    created_at   INTEGER NOT NULL,  -- unix microseconds
    PRIMARY KEY (hold, period)
);
CREATE INDEX upstream_holds_created ON upstream_holds (created_at);
-- A hold is taken only if spent + reserved + it fit its limit.
CREATE TRIGGER upstream_holds_take BEFORE INSERT ON upstream_holds
BEGIN
    INSERT OR IGNORE INTO upstream_budget (period, spent, reserved) VALUES (NEW.period, 0, 0);
    SELECT RAISE(ABORT, 'upstream budget spent')
    WHERE (SELECT spent + reserved FROM upstream_budget WHERE period = NEW.period) + NEW.micros > NEW.limit_micros;
    UPDATE upstream_budget SET reserved = reserved + NEW.micros WHERE period = NEW.period;
END;
-- Dropping a hold releases it and counts what the call cost.
CREATE TRIGGER upstream_holds_drop AFTER DELETE ON upstream_holds
BEGIN
    UPDATE upstream_budget SET reserved = reserved - OLD.micros, spent = spent + OLD.spent WHERE period = OLD.period;
END;

-- The 'keys' counter (see the database's migration 0035): it moves with
-- every change of a key other than a debit, by these triggers.
CREATE TABLE versions (
    name TEXT PRIMARY KEY,
    n    INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO versions (name, n) VALUES ('keys', 0);
CREATE TRIGGER versions_key_credit AFTER INSERT ON ledger WHEN NEW.kind != 'debit'
BEGIN UPDATE versions SET n = n + 1 WHERE name = 'keys'; END;
CREATE TRIGGER versions_key_update AFTER UPDATE OF revoked_at, rate_limit, fault, digest, prefix ON api_keys
BEGIN UPDATE versions SET n = n + 1 WHERE name = 'keys'; END;
CREATE TRIGGER versions_key_delete AFTER DELETE ON api_keys
BEGIN UPDATE versions SET n = n + 1 WHERE name = 'keys'; END;
