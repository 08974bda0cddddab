-- The world a database holds (roost gen, roost live): one row. seed is the
-- seed roost gen generated it with (NULL: imports only, or generated before
-- this table existed); live_tick is the last tick of the living world
-- written (0: none), advanced in the same transaction as the tick's data;
-- live_base_ms is the Unix millisecond time the live clock started from,
-- set before its first tick.
CREATE TABLE world (
    id           integer PRIMARY KEY CHECK (id = 1),
    seed         bigint,
    live_tick    bigint  NOT NULL DEFAULT 0,
    live_base_ms bigint
);
INSERT INTO world (id) VALUES (1);
