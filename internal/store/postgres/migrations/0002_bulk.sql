-- Bulk loads (bulk.go) drop secondary indexes while they run and build
-- them again at the end. Whatever is to be put back is recorded here in the
-- transaction that drops it; Open runs what a load left behind when its
-- process died (no session holds the load's advisory lock any more).
CREATE TABLE bulk_restore (
    name text    PRIMARY KEY, -- the index (or 'load' for the load itself)
    seq  integer NOT NULL,    -- run in this order
    sql  text    NOT NULL     -- the statement that puts it back ('' for none)
);
