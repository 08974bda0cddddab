-- A full-text index's leaves are pgsz bytes (FTS5's default: 1000), and
-- FTS5 merges in work units: once every 64 leaves written, in the write
-- that crossed the mark, it merges up to 64 leaves for each level of the
-- index. A living world or any stream of small writes makes a segment of
-- one leaf per write, so every 64 writes one of them merged for 10-30 ms
-- while holding the write connection, which every paid page's debit
-- waits for. With leaves of 500 bytes a unit merges half as much, and
-- measured on a 1M-post database (6,000 ticks of the living world at
-- 200/s) the ticks' p99 went from 11.0 to 2.8-3.3 ms, the ticks over 4 ms
-- from 67-73 to 21-40, their time from 1.0-1.1 s to 0.18-0.37 s, and all
-- ticks' time from 4.0-4.1 to 3.2-3.6 s. The search mix on a database
-- generated with 500-byte leaves took the same time as with 1000 (its
-- file 3 % larger). Segments written before keep their leaves.
INSERT INTO posts_fts (posts_fts, rank) VALUES ('pgsz', 500);
INSERT INTO post_urls (post_urls, rank) VALUES ('pgsz', 500);
