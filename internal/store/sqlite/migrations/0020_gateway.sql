-- The gateway (roost serve --upstream): pages fetched upstream, what each
-- request cost upstream (append-only), and the shared upstream budget.
CREATE TABLE gateway_pages (
    key        TEXT PRIMARY KEY,  -- SHA-256 of route, path values, query and body
    route      TEXT NOT NULL,
    body       BLOB NOT NULL,     -- the page as upstream served it
    items      INTEGER NOT NULL,  -- billable items in it
    fetched_at INTEGER NOT NULL   -- unix microseconds
);

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

-- The upstream ledger is append-only, as the ledger is.
CREATE TRIGGER upstream_ledger_no_update BEFORE UPDATE ON upstream_ledger
BEGIN SELECT RAISE(ABORT, 'upstream_ledger is append-only'); END;
CREATE TRIGGER upstream_ledger_no_delete BEFORE DELETE ON upstream_ledger
BEGIN SELECT RAISE(ABORT, 'upstream_ledger is append-only'); END;

CREATE TABLE upstream_budget (
    period   TEXT PRIMARY KEY,   -- 'total' or 'day:YYYY-MM-DD' (UTC)
    spent    INTEGER NOT NULL,   -- micro-USD settled
    reserved INTEGER NOT NULL    -- micro-USD held by calls in flight
);
