-- The gateway (roost serve --upstream): pages fetched upstream, what each
-- request cost upstream (append-only), and the shared upstream budget.
CREATE TABLE gateway_pages (
    key        text PRIMARY KEY,  -- SHA-256 of route, path values, query and body
    route      text NOT NULL,
    body       bytea NOT NULL,    -- the page as upstream served it
    items      bigint NOT NULL,   -- billable items in it
    fetched_at bigint NOT NULL    -- unix microseconds
);

CREATE TABLE upstream_ledger (
    id                 bigserial PRIMARY KEY,
    request_id         text NOT NULL,
    key_id             bigint NOT NULL,
    endpoint           text NOT NULL,
    cache_hit          boolean NOT NULL,
    status             integer NOT NULL,
    upstream_micro_usd bigint NOT NULL,
    created_at         bigint NOT NULL
);

-- The upstream ledger is append-only, as the ledger is.
CREATE FUNCTION upstream_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'upstream_ledger is append-only';
END $$;
CREATE TRIGGER upstream_ledger_no_change BEFORE UPDATE OR DELETE ON upstream_ledger
    FOR EACH ROW EXECUTE FUNCTION upstream_ledger_append_only();

CREATE TABLE upstream_budget (
    period   text PRIMARY KEY,   -- 'total' or 'day:YYYY-MM-DD' (UTC)
    spent    bigint NOT NULL,    -- micro-USD settled
    reserved bigint NOT NULL     -- micro-USD held by calls in flight
);
