-- The search monitors' schedule: the monitor service reads which are due
-- (next_run_at <= now, by kind) and when the next one is (the earliest
-- next_run_at of each kind) at every poll, and sleeps until then.
CREATE INDEX monitors_runs ON monitors (kind, next_run_at);
