-- Bulk loads (sqlite/bulk.go) drop the secondary indexes of posts and
-- relax full-text merging while they run, and put both back at the end.
-- Whatever is to be put back is recorded here in the transaction that
-- changes it; Open runs what a crashed load left behind.
CREATE TABLE bulk_restore (
    name TEXT PRIMARY KEY, -- the index or setting
    seq  INTEGER NOT NULL, -- run in this order
    sql  TEXT    NOT NULL
);
