-- Reservations of the shared upstream budget as rows (one per call and
-- budget period) with their time, so that a reservation left by a crash
-- (reserved before the upstream call, never settled) is released once it
-- is older than any call can last. upstream_budget.reserved stays the sum
-- of the rows, kept by these triggers in the statement that changes them.
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

-- Reservations of the counter alone (before this migration) cannot be told
-- from leaked ones: none is in flight while the store is being migrated.
UPDATE upstream_budget SET reserved = 0;

-- The page cache is pruned by age (roost serve --cache-max-age).
CREATE INDEX gateway_pages_fetched ON gateway_pages (fetched_at);
